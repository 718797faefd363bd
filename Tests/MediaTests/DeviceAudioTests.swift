import Foundation
@testable import Media
import Testing

/// The parts of device audio that do not need a sound server (scripts/test-audio runs the rest
/// against a real PulseAudio): the rings, drift compensation over a simulated hour, the voice
/// processor on a synthetic echo, and how users name devices.
@Suite struct DeviceAudioTests {
    @Test func ringKeepsOrderAcrossTheWrapAndRefusesWhatDoesNotFit() {
        let ring = SampleRing(minimumCapacity: 6)  // rounds up to 8
        var written: Int16 = 0
        var expected: Int16 = 0
        for _ in 0..<50 {
            let chunk = (0..<5).map { _ -> Int16 in written += 1; return written }
            #expect(chunk.withUnsafeBufferPointer { ring.write($0) } == 5)
            var out = [Int16](repeating: 0, count: 5)
            #expect(out.withUnsafeMutableBufferPointer { ring.read(into: $0) } == 5)
            for value in out {
                expected += 1
                #expect(value == expected)
            }
        }
        let nine = [Int16](repeating: 7, count: 9)
        #expect(nine.withUnsafeBufferPointer { ring.write($0) } == 8)
        #expect(ring.count == 8)
        ring.discard(3)
        #expect(ring.count == 5)
    }

    /// The sound card's clock runs 200 ppm fast against the media clock (crystals are rarely off
    /// by more than 100): over an hour the capture ring must stay near its target, not grow
    /// by the 720 ms the drift adds up to.
    @Test func captureRingStaysAtTargetOverAnHourOfDrift() throws {
        let rate = 8000
        let frame = rate / 50
        let target = rate * 30 / 1000
        let drift = try DriftCompensator(sampleRate: rate, frameSamples: frame, targetFill: target, resetExcess: rate * 20 / 1000)
        let ring = SampleRing(minimumCapacity: rate)
        let chunk = [Int16](repeating: 1000, count: 400)
        var produced = 0.0
        var frameBuffer = [Int16](repeating: 0, count: frame)
        var worst = 0
        for tick in 0..<(3600 * 50) {
            // The card delivers 20 ms of its time, which is 20.004 ms of ours, per tick.
            produced += Double(frame) * 1.0002
            let whole = Int(produced)
            produced -= Double(whole)
            _ = chunk.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[0..<whole])) }
            frameBuffer.withUnsafeMutableBufferPointer { drift.pull(from: ring, into: $0) }
            if tick > 50 * 60 { worst = max(worst, abs(ring.count + frame - target)) }
        }
        #expect(drift.resets == 0)
        #expect(worst < rate * 10 / 1000, "the fill strayed \(worst) samples from its target")
    }

    /// The card plays 200 ppm slow: the playback ring must not fill up over an hour.
    @Test func playbackRingStaysAtTargetOverAnHourOfDrift() throws {
        let rate = 8000
        let frame = rate / 50
        let target = rate * 10 / 1000
        let drift = try DriftCompensator(sampleRate: rate, frameSamples: frame, targetFill: target, resetExcess: rate * 20 / 1000)
        let ring = SampleRing(minimumCapacity: rate)
        let input = [Int16](repeating: 1000, count: frame)
        var drain = [Int16](repeating: 0, count: 400)
        var consumed = 0.0
        var worst = 0
        for tick in 0..<(3600 * 50) {
            input.withUnsafeBufferPointer { drift.push($0, onto: ring) }
            consumed += Double(frame) * 0.9998
            let whole = Int(consumed)
            consumed -= Double(whole)
            // The server takes what it needs a little after the push.
            _ = drain.withUnsafeMutableBufferPointer { ring.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<whole])) }
            if tick > 50 * 60 { worst = max(worst, abs(ring.count - target)) }
        }
        #expect(drift.resets == 0)
        #expect(worst < rate * 10 / 1000, "the fill strayed \(worst) samples from its target")
    }

    /// A big excess (a stall, a start) is cut back at once, not over minutes.
    @Test func captureExcessIsCutAtOnce() throws {
        let rate = 8000
        let drift = try DriftCompensator(sampleRate: rate, frameSamples: 160, targetFill: 240, resetExcess: 160)
        let ring = SampleRing(minimumCapacity: rate)
        _ = [Int16](repeating: 0, count: 4000).withUnsafeBufferPointer { ring.write($0) }
        var frame = [Int16](repeating: 0, count: 160)
        frame.withUnsafeMutableBufferPointer { drift.pull(from: ring, into: $0) }
        #expect(drift.resets == 1)
        #expect(ring.count <= 240)
    }

    /// WebRTC's canceller on a synthetic room: the microphone hears the far end's speech-like
    /// signal 40 ms late at half level. After it has adapted, what it lets through is at least
    /// 20 dB below the echo.
    @Test func voiceProcessorCancelsASyntheticEcho() throws {
        let rate = 16000
        let processor = try #require(try VoiceProcessor.make(sampleRate: rate, processing: VoiceProcessing(noiseSuppression: false, gainControl: false)))
        processor.echoDelayMilliseconds = 40
        let delay = rate * 40 / 1000
        var history = [Int16](repeating: 0, count: delay)
        var generator = SystemRandomNumberGenerator()
        var echoEnergy = 0.0
        var leftEnergy = 0.0
        for tick in 0..<(50 * 8) {
            // Noise shaped into bursts, like speech: the canceller needs a broadband reference.
            let loud = (tick / 10) % 2 == 0
            let far = (0..<320).map { _ in Int16.random(in: loud ? -8000...8000 : -800...800, using: &generator) }
            history += far
            var microphone = history[0..<320].map { $0 / 2 }
            history.removeFirst(320)
            far.withUnsafeBufferPointer { processor.analyzeRender($0) }
            let before = microphone.reduce(0.0) { $0 + Double($1) * Double($1) }
            microphone.withUnsafeMutableBufferPointer { processor.processCapture($0) }
            if tick >= 50 * 5 {
                echoEnergy += before
                leftEnergy += microphone.reduce(0.0) { $0 + Double($1) * Double($1) }
            }
        }
        let attenuation = 10 * log10(echoEnergy / max(leftEnergy, 1))
        #expect(attenuation >= 20, "echo only \(attenuation) dB down")
    }

    @Test func devicesAreNamedAsDocumented() throws {
        #expect(try AudioSourceSpec("mic") == .microphone(device: nil, processing: VoiceProcessing()))
        #expect(try AudioSourceSpec("mic:alsa_input.usb") == .microphone(device: "alsa_input.usb", processing: VoiceProcessing()))
        #expect(try AudioSinkSpec("speaker") == .speaker(device: nil))
        #expect(try AudioSinkSpec("speaker:spk") == .speaker(device: "spk"))
        #expect(throws: AudioError.unknownSource("mic:")) { try AudioSourceSpec("mic:") }
        #expect(throws: AudioError.unknownSink("speaker:")) { try AudioSinkSpec("speaker:") }
        #expect(try AudioSinkSpec.tee([.speaker(device: nil), .wav(path: "a.wav", stereo: false)]).usesDevice)
        #expect(try !AudioSinkSpec("a.wav").usesDevice)
    }

    @Test func noServerIsItsOwnError() {
        let message = AudioError.unavailable("Connection refused").description
        #expect(message.contains("PULSE_SERVER"))
        #expect(!message.contains("\n"))
    }
}
