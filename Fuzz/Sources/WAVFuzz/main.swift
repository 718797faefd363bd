import FuzzSupport
@testable import Media

/// WAV files a user points a prompt or a bot at. Invariants: the samples come from inside the
/// file, and the mono 16 kHz version has the length the rate change implies.
func fuzzWAV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let content = try? WAVContent.parse(bytes, path: "fuzz.wav") else { return 0 }
    fuzzCheck(content.samples.count * 2 <= bytes.count, "more samples than bytes")
    fuzzCheck((1...2).contains(content.channels) && (8000...96000).contains(content.sampleRate), "format outside the accepted range")
    guard let mono = try? content.mono(at: 16000) else { return 0 }
    let frames = content.samples.count / content.channels
    let expected = Double(frames) * 16000 / Double(content.sampleRate)
    fuzzCheck(Double(mono.count) <= expected + 64, "\(frames) frames at \(content.sampleRate) Hz gave \(mono.count) at 16 kHz")
    return 0
}

runFuzzer(fuzzWAV)
