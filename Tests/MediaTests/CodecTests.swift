import Foundation
import Media
import Testing

@Suite struct G711Tests {
    @Test func knownCodeWords() {
        #expect(G711.muLawEncode(0) == 0xFF)
        #expect(G711.muLawDecode(0xFF) == 0)
        #expect(G711.muLawDecode(0x00) == -32124)
        #expect(G711.muLawDecode(0x80) == 32124)
        #expect(G711.muLawEncode(Int16.max) == 0x80)
        #expect(G711.muLawEncode(Int16.min) == 0x00)
        #expect(G711.aLawEncode(0) == 0xD5)
        #expect(G711.aLawDecode(0xD5) == 8)
        #expect(G711.aLawDecode(0x55) == -8)
        #expect(G711.aLawDecode(0xAA) == 32256)
        #expect(G711.aLawDecode(0x2A) == -32256)
    }

    /// Every code word decodes to a value that encodes back to the same code word (apart from
    /// µ-law's two zeros), and quantisation error stays within the segment's step.
    @Test func codeWordsRoundTrip() {
        for code in UInt8.min...UInt8.max {
            let mu = G711.muLawEncode(G711.muLawDecode(code))
            #expect(mu == code || (code == 0x7F && mu == 0xFF))
            #expect(G711.aLawEncode(G711.aLawDecode(code)) == code)
        }
        for sample in stride(from: -32768, through: 32767, by: 7) {
            let value = Int16(sample)
            let muError = abs(Int(G711.muLawDecode(G711.muLawEncode(value))) - sample)
            let aError = abs(Int(G711.aLawDecode(G711.aLawEncode(value))) - sample)
            // Largest step is 1024 (µ-law) / 1024 (A-law) in the top segment; clipping adds 32767-32124.
            #expect(muError <= max(512, abs(sample) / 16 + 16) || abs(sample) > 32124)
            #expect(aError <= max(16, abs(sample) / 16 + 16))
        }
    }

    @Test func toneSurvivesBothLaws() throws {
        for law in [G711Codec.Law.mu, .a] {
            let codec = G711Codec(law: law)
            let input = TestAudio.sine(1000, sampleRate: 8000, count: 1600)
            var payload = [UInt8](repeating: 0, count: 1600)
            var output = [Int16](repeating: 0, count: 1600)
            let encoded = try input.withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try codec.encode(pcm, into: $0) } }
            #expect(encoded == 1600)
            _ = try payload.withUnsafeBytes { bytes in try output.withUnsafeMutableBufferPointer { try codec.decode(bytes, into: $0) } }
            #expect(TestAudio.snr(reference: input, decoded: output, maxLag: 0) > 30)
        }
    }

    @Test func concealmentFadesToSilence() throws {
        let codec = G711Codec(law: .mu)
        let frame = [UInt8](repeating: G711.muLawEncode(8000), count: 160)
        var output = [Int16](repeating: 0, count: 160)
        _ = try frame.withUnsafeBytes { bytes in try output.withUnsafeMutableBufferPointer { try codec.decode(bytes, into: $0) } }
        var levels: [Double] = []
        for _ in 0..<4 {
            _ = try output.withUnsafeMutableBufferPointer { try codec.conceal(into: $0) }
            levels.append(TestAudio.rms(output[...]))
        }
        #expect(levels[0] > levels[1] && levels[1] > levels[2] && levels[2] > 0)
        #expect(levels[3] == 0)
    }
}

@Suite struct OpusTests {
    /// Encodes `input` in 20 ms frames; returns the payloads.
    func encode(_ input: [Int16], settings: OpusSettings = OpusSettings()) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(settings: settings)
        var payloads: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        for start in stride(from: 0, to: input.count - 959, by: 960) {
            let length = try input[start..<(start + 960)].withUnsafeBufferPointer { pcm in
                try buffer.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            payloads.append(Array(buffer.prefix(length)))
        }
        return payloads
    }

    @Test func toneKeepsItsFrequencyThroughOpus() throws {
        let input = TestAudio.sine(440, sampleRate: 48000, count: 48000)
        let payloads = try encode(input)
        #expect(payloads.count == 50)
        let decoder = try OpusDecoder()
        var output: [Int16] = []
        var frame = [Int16](repeating: 0, count: 5760)
        for payload in payloads {
            let samples = try payload.withUnsafeBytes { bytes in try frame.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
            #expect(samples == 960)
            output += frame.prefix(samples)
        }
        let frequency = TestAudio.dominantFrequency(Array(output[9600...]), sampleRate: 48000)
        #expect(abs(frequency - 440) <= 5)
        #expect(TestAudio.snr(reference: input, decoded: output, maxLag: 480) > 10)
    }

    /// An agent's rate: libopus codes natively at 8, 16 and 24 kHz, and a stream made at one
    /// rate decodes at any other (the far end decodes at 48 kHz what we coded at 16).
    @Test(arguments: [(8000, 48000), (16000, 48000), (24000, 16000), (48000, 8000)])
    func opusCodesAtAnAgentsRateAndDecodesAtAnother(encodedAt: Int, decodedAt: Int) throws {
        let frame = encodedAt / 50
        let encoder = try OpusEncoder(sampleRate: encodedAt)
        #expect(encoder.frameSamples == frame)
        let decoder = try OpusDecoder(sampleRate: decodedAt)
        let input = TestAudio.sine(440, sampleRate: encodedAt, count: encodedAt)
        var payload = [UInt8](repeating: 0, count: 1500)
        var pcm = [Int16](repeating: 0, count: decodedAt * 120 / 1000)
        var output: [Int16] = []
        for start in stride(from: 0, to: input.count, by: frame) {
            let length = try input[start..<(start + frame)].withUnsafeBufferPointer { samples in
                try payload.withUnsafeMutableBytes { try encoder.encode(samples, into: $0) }
            }
            let decoded = try payload.prefix(length).withUnsafeBytes { bytes in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
            #expect(decoded == decodedAt / 50)
            output += pcm.prefix(decoded)
        }
        let frequency = TestAudio.dominantFrequency(Array(output[(decodedAt / 5)...]), sampleRate: decodedAt)
        #expect(abs(frequency - 440) <= 5, "heard \(frequency) Hz")
        // 18.75 ms at 16 kHz is no frame of libopus's, and 44.1 kHz no rate of it.
        let wrong = [Int16](repeating: 0, count: 300)
        #expect(throws: CodecError.self) {
            try wrong.withUnsafeBufferPointer { samples in try payload.withUnsafeMutableBytes { try OpusEncoder(sampleRate: 16000).encode(samples, into: $0) } }
        }
        #expect(throws: CodecError.unsupported("Opus at 44100 Hz")) { try OpusDecoder(sampleRate: 44100) }
    }

    @Test func bitrateFollowsNegotiatedMaximum() throws {
        let input = TestAudio.sine(440, sampleRate: 48000, count: 48000)
        let low = try encode(input, settings: OpusSettings.negotiated(remoteParameters: "maxaveragebitrate=8000;useinbandfec=0", ptime: nil))
        let high = try encode(input, settings: OpusSettings(bitrate: 64000, inbandFEC: false))
        let lowBytes = low.reduce(0) { $0 + $1.count }
        let highBytes = high.reduce(0) { $0 + $1.count }
        // One second of audio: bytes × 8 ≈ bitrate.
        #expect(lowBytes * 8 < 12000)
        #expect(highBytes > 3 * lowBytes)
    }

    @Test func negotiationReadsRemoteFmtpAndPTime() {
        let settings = OpusSettings.negotiated(remoteParameters: "minptime=10;useinbandfec=1;usedtx=1;maxplaybackrate=16000", ptime: 40)
        #expect(settings.inbandFEC)
        #expect(settings.dtx)
        #expect(settings.maxPlaybackRate == 16000)
        #expect(settings.frameMilliseconds == 40)
        #expect(OpusSettings.negotiated(remoteParameters: nil, ptime: 25).frameMilliseconds == 20)
        #expect(OpusSettings.negotiated(remoteParameters: "useinbandfec=0", ptime: nil).inbandFEC == false)
    }

    @Test func dtxSuppressesSilence() throws {
        let silence = [Int16](repeating: 0, count: 48000)
        let withDTX = try encode(silence, settings: OpusSettings(dtx: true))
        let without = try encode(silence, settings: OpusSettings(dtx: false))
        #expect(withDTX.filter(\.isEmpty).count > 30)
        #expect(without.allSatisfy { !$0.isEmpty })
    }

    /// A lost frame rebuilt from the next packet's in-band FEC is much closer to the original
    /// than plain concealment.
    @Test func inbandFECBeatsConcealment() throws {
        // A voice-like signal: two tones with a slowly changing envelope, so PLC cannot just extend it.
        let input: [Int16] = (0..<48000).map { index in
            let t = Double(index) / 48000
            let envelope = 0.5 + 0.5 * sin(2 * Double.pi * 3 * t)
            return Int16(9000 * envelope * (sin(2 * Double.pi * 300 * t) + 0.6 * sin(2 * Double.pi * 1100 * t * (1 + 0.1 * t))))
        }
        let payloads = try encode(input, settings: OpusSettings(bitrate: 32000, inbandFEC: true, expectedLossPercent: 30))
        let lost = 30
        func decodeAll(useFEC: Bool) throws -> [Int16] {
            let decoder = try OpusDecoder()
            var output: [Int16] = []
            var frame = [Int16](repeating: 0, count: 960)
            for (index, payload) in payloads.enumerated() {
                if index == lost {
                    let samples = try frame.withUnsafeMutableBufferPointer { pcm in
                        useFEC
                            ? try payloads[index + 1].withUnsafeBytes { try decoder.recover(lostBefore: $0, into: pcm) }
                            : try decoder.conceal(into: pcm)
                    }
                    #expect(samples == 960)
                } else {
                    _ = try payload.withUnsafeBytes { bytes in try frame.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
                }
                output += frame
            }
            return output
        }
        let reference = try decodeAll(useFEC: false)
        let fec = try decodeAll(useFEC: true)
        // Compare the lost frame against the input, allowing for the codec's delay.
        func error(_ output: [Int16]) -> Double {
            var best = Double.infinity
            for lag in 0..<400 {
                var sum = 0.0
                for index in (lost * 960)..<((lost + 1) * 960) {
                    let difference = Double(input[index]) - Double(output[index + lag])
                    sum += difference * difference
                }
                best = min(best, sum)
            }
            return best
        }
        #expect(error(fec) * 2 < error(reference))
    }
}
