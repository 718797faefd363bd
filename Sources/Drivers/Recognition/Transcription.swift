import Locking
import Media
import Parley

/// The words in a recording (`parley transcribe`): cut into stretches of speech as a call's are,
/// each recognised on its own, word times from the start of the file.
public enum Transcription {
    public static func words(inFile path: String, recognizer: SpeechRecognizer = .shared) async throws -> [RecognisedWord] {
        var words: [RecognisedWord] = []
        for segment in try stretches(inFile: path) {
            let offset = Double(segment.start) / Double(segment.sampleRate)
            for word in try await recognizer.recognise(segment.samples, sampleRate: segment.sampleRate) {
                words.append(RecognisedWord(word: word.word, start: word.start + offset, end: word.end + offset))
            }
        }
        return words
    }

    /// The recording's speech as a `heard:` step would hold it, to match expected words against.
    public static func heard(inFile path: String) throws -> HeardSpeech {
        var heard = HeardSpeech()
        for segment in try stretches(inFile: path) { heard.append(segment) }
        return heard
    }

    /// The file cut into stretches of speech. The whole file is speech to be heard, from its
    /// first sample: no earlier prompt to skip.
    private static func stretches(inFile path: String) throws -> [SpeechSegmenter.Segment] {
        let rate = SpeechDecoder.sampleRate
        let file = try WAVFileSource(path: path, sampleRate: rate)
        let segments = Lock([SpeechSegmenter.Segment]())
        let segmenter = SpeechSegmenter(sampleRate: rate, startQuiet: .zero) { segment in
            segments.withLock { $0.append(segment) }
        }
        var frame = [Int16](repeating: 0, count: rate / 50)
        // Bounded by the file's length in 20 ms frames.
        for _ in 0...(file.duration / frame.count) {
            guard frame.withUnsafeMutableBufferPointer({ file.read(into: $0) }) else { break }
            frame.withUnsafeBufferPointer { segmenter.listen(to: $0) }
        }
        segmenter.finish()
        return segments.withLock { $0 }
    }
}
