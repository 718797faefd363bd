import Media

/// What a merged call's sink does each tick: hand the far end's audio on, and mix the other far
/// end's into a scratch frame allocated once, at merge time.
/// Unchecked: `scratch` is raw memory only the sink's clock thread touches, under the sink's lock.
final class SinkMerge: @unchecked Sendable {
    let outputs: [FrameRing]
    let input: FrameRing
    /// Only the sink's clock thread touches it, under the sink's lock.
    private let scratch: UnsafeMutableBufferPointer<Int16>

    init(outputs: [FrameRing], input: FrameRing, frameSamples: Int) {
        self.outputs = outputs
        self.input = input
        scratch = .allocate(capacity: frameSamples * 6)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// Hands `remote` on to the other call, and returns it with the other far end mixed in.
    func mixed(_ remote: UnsafeBufferPointer<Int16>) -> UnsafeBufferPointer<Int16> {
        for ring in outputs { ring.write(remote) }
        let count = min(remote.count, scratch.count)
        let frame = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
        _ = frame.initialize(from: remote[0..<count])
        input.mix(into: frame)
        return UnsafeBufferPointer(frame)
    }
}

/// Two calls' audio crossed in the process (docs/architecture.md, "Merged calls"): each
/// far end hears the other besides us, and what we play or record of each call carries both
/// far ends. Four rings, each written by one call's clock and read by the other's, so the two
/// calls may sit on different shards.
struct AudioMerge: Sendable {
    let first: AudioTaps
    let second: AudioTaps

    init(_ first: AudioTaps, _ second: AudioTaps) throws(ParleyError) {
        guard first.sampleRate == second.sampleRate else {
            throw ParleyError(kind: .callState,
                              message: "cannot merge calls with different audio rates (\(first.sampleRate) and \(second.sampleRate) Hz); both need the same codec rate")
        }
        self.first = first
        self.second = second
    }

    func connect() {
        let frame = first.sampleRate / 50
        // Eight ticks of room; at most three waiting, so drift between two clocks adds at most 60 ms.
        func ring() -> FrameRing { FrameRing(capacity: frame * 8, maximumBacklog: frame * 3) }
        let (toFirstSource, toFirstSink, toSecondSource, toSecondSink) = (ring(), ring(), ring(), ring())
        first.source.merge(input: toFirstSource)
        second.source.merge(input: toSecondSource)
        first.sink.merge(outputs: [toSecondSource, toSecondSink], input: toFirstSink, frameSamples: frame)
        second.sink.merge(outputs: [toFirstSource, toFirstSink], input: toSecondSink, frameSamples: frame)
    }

    func disconnect() {
        first.sink.unmerge()
        second.sink.unmerge()
        first.source.merge(input: nil)
        second.source.merge(input: nil)
    }
}
