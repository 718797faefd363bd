import FuzzSupport
@testable import Parley

/// What an agent program sends (docs/agents.md) through the parser and through a call's bridge,
/// as the link thread hands it over. The input is split at newlines into messages; a first byte
/// of 0 makes a message binary audio. Invariants: a parsed hello names a rate the protocol has;
/// a `media` event the fast path reads (AgentMediaText+Read.swift) the parser reads the same;
/// whatever arrives, the bridge's next messages fit the link's buffer and the clock side reads
/// a whole frame.
func fuzzAgent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let bridge = AgentBridge(binaryAllowed: true, wake: {})
    bridge.received(UnsafeRawBufferPointer(start: nil, count: 0), binary: false)
    for message in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
        let binary = message.first == 0
        let body = Array(binary ? message.dropFirst() : message[...])
        if !binary, case .hello(_, let rate, _)? = try? body.withUnsafeBytes({ try AgentMessageParser.parse($0) }) {
            fuzzCheck(AgentProtocol.sampleRates.contains(rate), "a hello at \(rate) Hz was accepted")
        }
        if !binary {
            var samples = [Int16](repeating: 0, count: 8192)
            let read = body.withUnsafeBytes { raw in samples.withUnsafeMutableBufferPointer { AgentMediaText.read(raw, into: $0) } }
            if let read {
                let parsed = try? body.withUnsafeBytes { try AgentMessageParser.parse($0) }
                fuzzCheck(parsed == .media(payload: Array(samples[..<read])), "the media fast path read \(read) samples the parser reads otherwise")
            }
        }
        body.withUnsafeBytes { bridge.received($0, binary: binary) }
    }
    if bridge.sampleRate > 0, (try? bridge.attach(codecRate: 48000)) != nil {
        var frame = [Int16](repeating: 0, count: 960)
        _ = frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) }
        frame.withUnsafeBufferPointer { bridge.listen(to: $0) }
    }
    var buffer = [UInt8](repeating: 0, count: 16_384)
    var rounds = 0
    while rounds < 64, let next = buffer.withUnsafeMutableBytes({ bridge.nextMessage(into: $0) }) {
        rounds += 1
        fuzzCheck(next.length <= buffer.count, "a message of \(next.length) bytes overran the buffer")
    }
    bridge.close()
    return 0
}

runFuzzer(fuzzAgent)
