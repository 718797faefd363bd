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

    /// The delays read at a tick count from the instants the server's thread noted, so the time
    /// since that thread last ran is part of them.
    @Test func delaysCountFromTheNotedInstants() {
        // Newest sample captured 7 ms before the tick, 25 ms (1200 samples at 48 kHz) queued.
        #expect(DeviceTiming.oldestCaptureAge(now: 1_000_000, newestCaptured: 993_000, queuedSamples: 1200, sampleRate: 48000) == 32_000)
        // The server plays what it last took 12 ms from now; 10 ms (80 samples at 8 kHz) queued.
        #expect(DeviceTiming.playbackWait(now: 1_000_000, newestPlays: 1_012_000, queuedSamples: 80, sampleRate: 8000) == 22_000)
        // A server already past its newest sample (it ran dry) adds nothing, not a negative wait.
        #expect(DeviceTiming.playbackWait(now: 1_000_000, newestPlays: 990_000, queuedSamples: 80, sampleRate: 8000) == 10_000)
        #expect(DeviceBuffering.captureTargetMilliseconds == MediaClock.tickMilliseconds + DeviceBuffering.captureFragmentMilliseconds)
    }

    /// The capture buffers as the microphone sizes them, against a simulated server: 5 ms
    /// deliveries, each up to 4 ms late, a card clock 200 ppm fast, at every phase between
    /// deliveries and the media clock's ticks. Once settled (5 s) no tick finds less than a
    /// frame, and the oldest sample's age stays within the frame, the fragment the target adds,
    /// the fragment since the last delivery and the lateness (on average half of each of the
    /// last two). speexdsp crashed here before the compensator's steps were coarsened.
    @Test func captureBuffersNeverRunShortAtAnyPhase() throws {
        let rate = 48000
        let frame = rate * MediaClock.tickMilliseconds / 1000
        let fragment = rate * DeviceBuffering.captureFragmentMilliseconds / 1000
        let fragmentMicroseconds = DeviceBuffering.captureFragmentMilliseconds * 1000
        let tickMicroseconds = MediaClock.tickMilliseconds * 1000
        let lateness = fragmentMicroseconds * 4 / 5
        let chunk = [Int16](repeating: 1000, count: fragment)
        var generator = SplitMix(seed: 21)
        var worstMean = 0.0
        for phase in stride(from: 0, to: tickMicroseconds, by: 1000) {
            let drift = try DriftCompensator(
                sampleRate: rate, frameSamples: frame,
                targetFill: rate * DeviceBuffering.captureTargetMilliseconds / 1000,
                resetExcess: rate * DeviceBuffering.resetExcessMilliseconds / 1000)
            let ring = SampleRing(minimumCapacity: rate)
            var delivered = 0
            var lastDelivery = 0
            var newestCaptured = 0
            var output = [Int16](repeating: 0, count: frame)
            var ages = 0
            var counted = 0
            var worst = 0
            for tick in 1...(50 * 20) {
                let now = tick * tickMicroseconds + phase
                while true {
                    // Chunk `delivered` is complete on the card's clock, then the server's thread
                    // runs up to 4 ms late, never before the previous delivery.
                    let complete = Int(Double((delivered + 1) * fragmentMicroseconds) / 1.0002)
                    let delivery = max(lastDelivery, complete + Int.random(in: 0...lateness, using: &generator))
                    guard delivery <= now else { break }
                    _ = chunk.withUnsafeBufferPointer { ring.write($0) }
                    delivered += 1
                    lastDelivery = delivery
                    newestCaptured = complete
                }
                let age = DeviceTiming.oldestCaptureAge(
                    now: now, newestCaptured: newestCaptured, queuedSamples: ring.count + drift.heldSamples, sampleRate: rate)
                let underrunsBefore = drift.underruns
                output.withUnsafeMutableBufferPointer { drift.pull(from: ring, into: $0) }
                if tick > 250 {
                    #expect(drift.underruns == underrunsBefore, "phase \(phase) µs: tick \(tick) found less than a frame")
                    ages += age
                    counted += 1
                    worst = max(worst, age)
                }
            }
            #expect(drift.resets <= 1)
            #expect(worst <= tickMicroseconds + 2 * fragmentMicroseconds + lateness + 1000, "phase \(phase) µs: an age of \(worst) µs")
            worstMean = max(worstMean, Double(ages) / Double(counted))
        }
        // 1.5 ms more: the resampler's half filter (0.5 ms) and the fill above target that
        // steering against the drift takes.
        #expect(worstMean <= Double(tickMicroseconds + fragmentMicroseconds) + Double(fragmentMicroseconds + lateness) / 2 + 1500, "mean age \(worstMean) µs")
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

/// The same lateness in every run.
extension SplitMix: RandomNumberGenerator {}
