/// Cuts what a call receives into stretches of speech for the recogniser: a stretch starts at
/// the onset of speech (as `SpeechOnsetDetector` hears it, with the audio just before it) and
/// ends after `endSilence` of quiet, or when it reaches `maximum`. Speech already under way when
/// the segmenter starts is not a stretch: it listens only once it has heard `startQuiet` of
/// quiet, so the tail of an earlier prompt never counts (docs/speech.md).
/// Fed on the media clock thread with no lock; its buffer is allocated once, here, and a
/// finished stretch is copied out (one allocation per stretch, not per frame) for `segment`,
/// which must only hand it on.
/// Unchecked: fed only on the media clock thread (no lock per frame); `segment` only hands stretches on.
package final class SpeechSegmenter: ReceivedAudioListener, @unchecked Sendable {
    package static let defaultEndSilence = Duration.milliseconds(400)
    package static let defaultStartQuiet = Duration.milliseconds(300)
    package static let defaultMaximum = Duration.seconds(15)
    static let preroll = Duration.milliseconds(300)

    /// A stretch of speech: its samples and where it starts, in samples since the segmenter began.
    package struct Segment: Sendable {
        package let samples: [Int16]
        package let start: Int
        package let sampleRate: Int
    }

    private enum State { case tail, idle, speaking }

    package let sampleRate: Int
    private let threshold: Double
    private let attackSamples: Int
    private let hangoverSamples: Int
    private let endSilenceSamples: Int
    private let startQuietSamples: Int
    private let prerollSamples: Int
    private let segment: @Sendable (Segment) -> Void
    private var buffer: [Int16]
    private var count = 0
    private var ringStart = 0
    private var state = State.tail
    private var loud = 0
    private var quiet = 0
    private var position = 0
    private var segmentStart = 0

    package init(sampleRate: Int, maximum: Duration = defaultMaximum, endSilence: Duration = defaultEndSilence,
                 startQuiet: Duration = defaultStartQuiet, segment: @escaping @Sendable (Segment) -> Void) {
        self.sampleRate = sampleRate
        threshold = AudioMeasure.meanSquare(dBFS: SpeechOnsetDetector.defaultThresholdDBFS)
        attackSamples = AudioMeasure.samples(SpeechOnsetDetector.defaultAttack, sampleRate)
        hangoverSamples = AudioMeasure.samples(SpeechOnsetDetector.defaultHangover, sampleRate)
        endSilenceSamples = AudioMeasure.samples(endSilence, sampleRate)
        startQuietSamples = AudioMeasure.samples(startQuiet, sampleRate)
        prerollSamples = AudioMeasure.samples(Self.preroll, sampleRate)
        buffer = [Int16](repeating: 0, count: max(AudioMeasure.samples(maximum, sampleRate), prerollSamples * 2))
        self.segment = segment
        if startQuietSamples == 0 { state = .idle }
    }

    package func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard !frame.isEmpty else { return }
        let isLoud = AudioMeasure.meanSquare(of: frame) >= threshold
        defer { position += frame.count }
        switch state {
        case .tail:
            quiet = isLoud ? 0 : quiet + frame.count
            if quiet >= startQuietSamples {
                state = .idle
                quiet = 0
                loud = 0
            }
        case .idle:
            keepPreroll(frame)
            if isLoud {
                loud += frame.count
                quiet = 0
            } else {
                quiet += frame.count
                if quiet > hangoverSamples { loud = 0 }
            }
            if loud >= attackSamples { startSegment(through: frame.count) }
        case .speaking:
            let room = min(frame.count, buffer.count - count)
            for index in 0..<room { buffer[count + index] = frame[index] }
            count += room
            quiet = isLoud ? 0 : quiet + frame.count
            if quiet >= endSilenceSamples || count == buffer.count { endSegment() }
        }
    }

    /// Hands on the stretch under way, if any. Call it once the segmenter no longer listens.
    package func finish() {
        if state == .speaking { endSegment() }
        state = .tail
    }

    /// The last `prerollSamples` heard, as a ring at the front of the buffer.
    private func keepPreroll(_ frame: UnsafeBufferPointer<Int16>) {
        for sample in frame {
            buffer[ringStart] = sample
            ringStart = (ringStart + 1) % prerollSamples
            count = min(count + 1, prerollSamples)
        }
    }

    /// Starts a stretch with the ring, whose newest `frameCount` samples are the current frame.
    private func startSegment(through frameCount: Int) {
        // Unroll the ring in place, oldest first: rotate the buffer's front by `ringStart`.
        if count == prerollSamples, ringStart > 0 {
            buffer[0..<prerollSamples].withUnsafeMutableBufferPointer { ring in
                ring.reverse()
                ring[0..<(prerollSamples - ringStart)].reverse()
                ring[(prerollSamples - ringStart)...].reverse()
            }
        }
        segmentStart = position + frameCount - count
        ringStart = 0
        state = .speaking
        quiet = 0
    }

    private func endSegment() {
        // The trailing quiet is not speech; keep a little of it, as a decoder expects.
        let kept = max(0, count - max(0, quiet - prerollSamples))
        segment(Segment(samples: Array(buffer[0..<kept]), start: segmentStart, sampleRate: sampleRate))
        count = 0
        ringStart = 0
        loud = 0
        quiet = 0
        state = .idle
    }
}
