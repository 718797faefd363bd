import Foundation
import Media
import Locking
import Testing

/// The segmenter that cuts what a call receives into stretches of speech for the recogniser.
@Suite struct SpeechSegmenterTests {
    static let rate = 16000
    static let frame = 320

    /// Feeds 20 ms frames, loud (a 300 Hz tone) where `loud(frame)` says so, quiet otherwise;
    /// returns the stretches handed on.
    static func segments(frames: Int, startQuiet: Duration = SpeechSegmenter.defaultStartQuiet,
                         loud: (Int) -> Bool) -> [SpeechSegmenter.Segment] {
        let found = Lock([SpeechSegmenter.Segment]())
        let segmenter = SpeechSegmenter(sampleRate: rate, startQuiet: startQuiet) { segment in found.withLock { $0.append(segment) } }
        var buffer = [Int16](repeating: 0, count: frame)
        for index in 0..<frames {
            for sample in 0..<frame {
                let time = Double(index * frame + sample) / Double(rate)
                buffer[sample] = loud(index) ? Int16(8000 * sin(2 * .pi * 300 * time)) : 0
            }
            buffer.withUnsafeBufferPointer { segmenter.listen(to: $0) }
        }
        segmenter.finish()
        return found.withLock { $0 }
    }

    @Test func aStretchStartsAtTheOnsetWithTheAudioBeforeItAndEndsAfterTheQuiet() throws {
        // Quiet 0.5 s, speech 1 s (frames 25-74), quiet 1 s.
        let found = Self.segments(frames: 125) { (25..<75).contains($0) }
        let stretch = try #require(found.first)
        #expect(found.count == 1)
        // It starts up to 300 ms before the onset, and ends with at most 300 ms of the quiet after.
        let onset = 25 * Self.frame
        #expect(stretch.start <= onset && stretch.start >= onset - 300 * Self.rate / 1000)
        let end = stretch.start + stretch.samples.count
        #expect(end >= 75 * Self.frame && end <= 75 * Self.frame + 300 * Self.rate / 1000 + Self.frame)
    }

    @Test func speechUnderWayWhenItStartsIsNotAStretch() throws {
        // Loud from the first frame for 1 s (the tail of an earlier prompt), a 300 ms pause, then new speech.
        let found = Self.segments(frames: 150) { $0 < 50 || (65..<100).contains($0) }
        let stretch = try #require(found.first)
        #expect(found.count == 1)
        #expect(stretch.start >= 60 * Self.frame)
    }

    @Test func aPauseShorterThanTheStartQuietDoesNotEndTheTail() {
        // A 100 ms gap inside the earlier prompt is a pause between words, not its end.
        let found = Self.segments(frames: 100) { $0 < 30 || (35..<70).contains($0) }
        #expect(found.isEmpty)
    }

    @Test func withNoStartQuietSpeechUnderWayCounts() throws {
        let found = Self.segments(frames: 100, startQuiet: .zero) { $0 < 40 }
        #expect(try #require(found.first).start == 0)
    }

    @Test func speechStillUnderWayAtTheEndIsHandedOnByFinish() throws {
        let found = Self.segments(frames: 60) { $0 >= 20 }
        #expect(found.count == 1)
    }
}
