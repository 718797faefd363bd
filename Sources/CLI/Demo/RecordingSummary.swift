import Media

/// Reads a recording back and names the prompts it holds, by their tone frequencies.
enum RecordingSummary {
    struct Segment {
        let name: String
        let frequency: Double
        var seconds: Double
    }

    static func segments(path: String, prompts: [(frequency: Double, name: String)], sampleRate: Int = 48000) throws(AudioError) -> [Segment] {
        let source = try WAVFileSource(path: path, sampleRate: sampleRate)
        let chunk = sampleRate / 10
        var frame = [Int16](repeating: 0, count: chunk)
        var segments: [Segment] = []
        // Bounded: at most ten minutes of recording.
        for _ in 0..<(10 * 600) {
            let more = frame.withUnsafeMutableBufferPointer { source.read(into: $0) }
            guard more else { break }
            guard let prompt = frame.withUnsafeBufferPointer({ loudestPrompt(in: $0, prompts: prompts, sampleRate: sampleRate) }) else { continue }
            if let last = segments.last, last.name == prompt.name {
                segments[segments.count - 1].seconds += 0.1
            } else {
                segments.append(Segment(name: prompt.name, frequency: prompt.frequency, seconds: 0.1))
            }
        }
        // A tenth of a second between two prompts is a transition, not a prompt.
        return segments.filter { $0.seconds > 0.25 }
    }

    private static func loudestPrompt(in samples: UnsafeBufferPointer<Int16>, prompts: [(frequency: Double, name: String)], sampleRate: Int)
        -> (frequency: Double, name: String)?
    {
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        guard energy / Double(samples.count) > 300 * 300 else { return nil }
        let powers = prompts.map { Goertzel.power(of: $0.frequency, in: samples, sampleRate: sampleRate) }
        guard let best = powers.indices.max(by: { powers[$0] < powers[$1] }) else { return nil }
        // A pure tone puts about half its energy times N into its own bin.
        guard powers[best] > energy * Double(samples.count) * 0.25 else { return nil }
        return prompts[best]
    }
}
