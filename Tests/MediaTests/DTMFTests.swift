import Foundation
import Media
import Testing

@Suite struct DTMFTests {
    @Test func digitsMapToRFC4733Events() {
        let digits = "0123456789*#ABCD"
        #expect(digits.map { DTMFDigit($0)!.event } == Array(0...15))
        #expect(DTMFDigit("x") == nil)
        #expect(DTMFDigit(event: 16) == nil)
        #expect(DTMFDigit("5")!.frequencies == (770, 1336))
        #expect(DTMFDigit("#")!.frequencies == (941, 1477))
    }

    @Test func payloadRoundTrips() throws {
        var bytes = [UInt8](repeating: 0, count: 4)
        let event = TelephoneEvent(event: 11, isEnd: true, volume: 10, duration: 800)
        bytes.withUnsafeMutableBytes { event.write(into: $0) }
        #expect(bytes == [11, 0x8A, 0x03, 0x20])
        #expect(try bytes.withUnsafeBytes { try TelephoneEvent.parse($0) } == event)
        #expect(throws: RTPError.truncated(length: 3, needed: 4)) { try [UInt8](repeating: 0, count: 3).withUnsafeBytes { try TelephoneEvent.parse($0) } }
    }

    @Test func senderEmitsMarkerUpdatesAndThreeEnds() {
        let sender = DTMFSender(clockRate: 8000, durationMilliseconds: 100, gapMilliseconds: 40, volume: 7)
        #expect(sender.enqueue("1#"))
        #expect(!sender.enqueue("1x"))
        var packets: [DTMFSender.Packet] = []
        var timestamp: UInt32 = 1000
        var audioFrames = 0
        for _ in 0..<40 {
            if let packet = sender.step(timestamp: timestamp, frameSamples: 160) { packets.append(packet) } else { audioFrames += 1 }
            timestamp += 160
        }
        // Per digit: 100 ms = 5 frames, the 5th is the first end packet, plus two more end copies.
        let first = packets.filter { $0.event.event == 1 }
        #expect(first.count == 7)
        #expect(first.map(\.marker) == [true, false, false, false, false, false, false])
        #expect(first.map(\.event.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(first.map(\.event.isEnd) == [false, false, false, false, true, true, true])
        #expect(Set(first.map(\.timestamp)) == [1000])
        #expect(first.allSatisfy { $0.event.volume == 7 })
        let second = packets.filter { $0.event.event == 11 }
        #expect(second.count == 7)
        // The second digit starts after a 40 ms gap (2 frames of audio).
        #expect(second[0].timestamp == 1000 + 9 * 160)
        #expect(sender.isIdle)
        #expect(audioFrames == 40 - 14)
    }

    @Test func receiverReportsEachDigitOnce() {
        let sender = DTMFSender(clockRate: 48000, durationMilliseconds: 80)
        sender.enqueue("55")
        var receiver = DTMFReceiver()
        var heard: [Character] = []
        var timestamp: UInt32 = 0
        for _ in 0..<40 {
            if let packet = sender.step(timestamp: timestamp, frameSamples: 960),
                let digit = receiver.receive(packet.event, timestamp: packet.timestamp)
            {
                heard.append(digit.character)
            }
            timestamp += 960
        }
        #expect(heard == ["5", "5"])
    }

    func dtmfAudio(_ digits: String, toneMilliseconds: Int = 80, gapMilliseconds: Int = 80) -> [Int16] {
        var samples: [Int16] = []
        for character in digits {
            let (low, high) = DTMFDigit(character)!.frequencies
            let count = toneMilliseconds * 8
            samples += (0..<count).map { index in
                let t = Double(index) / 8000
                return Int16(7000 * sin(2 * .pi * low * t) + 7000 * sin(2 * .pi * high * t))
            }
            samples += [Int16](repeating: 0, count: gapMilliseconds * 8)
        }
        return samples
    }

    func detect(_ samples: [Int16], sampleRate: Int = 8000) -> String {
        var detector = InBandDTMFDetector(sampleRate: sampleRate)
        let block = sampleRate / 50
        var found = ""
        samples.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count - block + 1, by: block) {
                if let digit = detector.process(UnsafeBufferPointer(rebasing: buffer[start..<(start + block)])) { found.append(digit.character) }
            }
        }
        return found
    }

    /// 48 kHz audio (what Opus decodes to) is averaged down to 8 kHz before the filters run.
    @Test func goertzelDetectsEveryDigitAt48kHzAndIgnoresSingleTones() {
        let digits = "0123456789*#ABCD"
        var audio: [Int16] = []
        for character in digits {
            let (low, high) = DTMFDigit(character)!.frequencies
            audio += (0..<(80 * 48)).map { index in
                let t = Double(index) / 48000
                return Int16(7000 * sin(2 * .pi * low * t) + 7000 * sin(2 * .pi * high * t))
            }
            audio += [Int16](repeating: 0, count: 60 * 48)
        }
        #expect(detect(audio, sampleRate: 48000) == digits)
        #expect(detect(TestAudio.sine(1336, sampleRate: 48000, count: 48000), sampleRate: 48000) == "")
        // A tone pair 8 kHz above a digit's (what would fold onto it without the averaging).
        let folded = (0..<48000).map { index in
            let t = Double(index) / 48000
            return Int16(7000 * sin(2 * .pi * 8697 * t) + 7000 * sin(2 * .pi * 9209 * t))
        }
        #expect(detect(folded, sampleRate: 48000) == "")
    }

    @Test func goertzelDetectsEveryDigitThroughG711() {
        let digits = "0123456789*#ABCD"
        let audio = dtmfAudio(digits).map { G711.muLawDecode(G711.muLawEncode($0)) }
        #expect(detect(audio) == digits)
        let alaw = dtmfAudio("907").map { G711.aLawDecode(G711.aLawEncode($0)) }
        #expect(detect(alaw) == "907")
    }

    @Test func goertzelIgnoresTonesAndSilence() {
        #expect(detect(TestAudio.sine(440, sampleRate: 8000, count: 8000)) == "")
        #expect(detect(TestAudio.sine(770, sampleRate: 8000, count: 8000)) == "")
        #expect(detect([Int16](repeating: 0, count: 8000)) == "")
        // A held digit is one digit.
        #expect(detect(dtmfAudio("8", toneMilliseconds: 600)) == "8")
    }

    /// The detector's four-filter pass computes what four single filters do, bit for bit, so it
    /// decides exactly as the single filters would (a change of arithmetic order would show here).
    @Test(arguments: [8000, 16000, 48000])
    func goertzelBankMatchesSingleFilters(sampleRate: Int) {
        let frequencies = SIMD4<Double>(697, 1209, 1336.5, 3000)
        let bank = GoertzelBank(frequencies, sampleRate: sampleRate)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<(sampleRate / 50)).map { _ in Int16.random(in: -20000...20000, using: &generator) }
        let digit = dtmfAudio("5").prefix(sampleRate / 50).map { $0 }
        for block in [noise, digit, [Int16](repeating: 0, count: 160), [Int16](repeating: .max, count: 960)] {
            block.withUnsafeBufferPointer { samples in
                let powers = bank.powers(in: samples)
                for lane in 0..<4 {
                    #expect(powers[lane] == Goertzel.power(of: frequencies[lane], in: samples, sampleRate: sampleRate))
                }
            }
        }
    }
}
