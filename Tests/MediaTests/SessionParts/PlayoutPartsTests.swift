import Foundation
@testable import Media
import Testing

/// A decoder whose output says what made it: a frame's bytes as samples, 7 for a frame rebuilt
/// from the next packet, -1 for concealment; a payload that starts with 0xFF does not decode.
private final class TracingDecoder: AudioDecoder {
    let sampleRate = 8000
    let canRecoverFromNextPacket = true
    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        if payload.first == 0xFF { throw .library(function: "decode", code: -1) }
        for (index, byte) in payload.enumerated() { pcm[index] = Int16(byte) }
        return payload.count
    }
    func recover(lostBefore next: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        pcm.update(repeating: 7)
        return pcm.count
    }
    func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        pcm.update(repeating: -1)
        return pcm.count
    }
}

/// The parts of a session's playing side, each on its own.
@Suite struct PlayoutPartsTests {
    @Test func eachDecisionMakesAFrameAndSaysWhetherItWasMadeUp() throws {
        let decoding = FrameDecoding(decoder: TracingDecoder(), maximumPayload: 64, sampleRate: 8000, frameSamples: 4)
        let payload = try #require(decoding.payload)
        #expect(decoding.decodes && decoding.wantsNextPacket)

        payload.copyBytes(from: [10, 20, 30, 40])
        #expect(decoding.produce(.decode(length: 4)) == (4, false))
        #expect(Array(UnsafeBufferPointer(start: decoding.output, count: 4)) == [10, 20, 30, 40])

        payload.copyBytes(from: [0xFF, 1])
        #expect(decoding.produce(.decode(length: 2)) == (4, true))
        #expect(Array(UnsafeBufferPointer(start: decoding.output, count: 4)) == [-1, -1, -1, -1])

        #expect(decoding.produce(.recover(nextLength: 2)) == (4, true))
        #expect(decoding.output.pointee == 7)
        #expect(decoding.produce(.recover(nextLength: nil)) == (4, true))
        #expect(decoding.output.pointee == -1)
        #expect(decoding.produce(.stretch) == (4, true))
    }

    @Test func withoutADecoderEachDecisionStandsForAFrame() {
        let decoding = FrameDecoding(decoder: nil, maximumPayload: 64, sampleRate: 8000, frameSamples: 160)
        #expect(decoding.payload == nil && !decoding.decodes && !decoding.wantsNextPacket)
        #expect(decoding.produce(.decode(length: 160)) == (160, false))
        #expect(decoding.produce(.recover(nextLength: nil)) == (160, true))
        #expect(decoding.produce(.stretch) == (160, true))
    }

    @Test func whatADecodedPacketGivesBeyondTheTickWaitsForTheNextTick() {
        let playout = PlayoutBuffer(tickSamples: 4, capacity: 16, keepsSamples: true)
        let packet: [Int16] = [1, 2, 3, 4, 5, 6]
        playout.startTick()
        packet.withUnsafeBufferPointer { playout.append($0.baseAddress!, count: 6) }
        #expect(!playout.needsSamples)
        #expect(Array(playout.finishTick(silenced: false)) == [1, 2, 3, 4])
        #expect(playout.level > 0)
        playout.startTick()
        #expect(playout.count == 2 && playout.needsSamples)
        playout.padWithSilence()
        #expect(Array(playout.finishTick(silenced: false)) == [5, 6, 0, 0])
        playout.startTick()
        #expect(playout.count == 0)
    }

    @Test func aHeldCallPlaysSilenceAndAFullBufferTakesWhatFits() {
        let playout = PlayoutBuffer(tickSamples: 4, capacity: 6, keepsSamples: true)
        let packet: [Int16] = [9, 9, 9, 9, 9, 9, 9, 9]
        packet.withUnsafeBufferPointer { playout.append($0.baseAddress!, count: 8) }
        #expect(playout.count == 6)
        #expect(Array(playout.finishTick(silenced: true)) == [0, 0, 0, 0])
        #expect(playout.level == 0)
    }

    @Test func aBufferThatKeepsNoSamplesCountsTheSameAndHasNoLevel() {
        let playout = PlayoutBuffer(tickSamples: 160, capacity: 1920, keepsSamples: false)
        let nothing: [Int16] = [0]
        nothing.withUnsafeBufferPointer { playout.append($0.baseAddress!, count: 240) }
        #expect(playout.finishTick(silenced: false).isEmpty)
        #expect(playout.level == 0)
        playout.startTick()
        #expect(playout.count == 80)
    }

    @Test func theFirstAudibleFrameIsReportedOnceAndOnlyWhenWatched() {
        var watch = PlayedAudioWatch(watchesFirstAudible: true, inBandDigitsAt: nil)
        let silence = [Int16](repeating: 0, count: 160)
        var sound = silence
        sound[80] = 1
        let heard = [silence, sound, sound].map { frame in frame.withUnsafeBufferPointer { watch.listen(to: $0) } }
        #expect(heard == [.init(), .init(firstAudible: true), .init()])
        var unwatched = PlayedAudioWatch(watchesFirstAudible: false, inBandDigitsAt: nil)
        let unwatchedHeard = sound.withUnsafeBufferPointer { unwatched.listen(to: $0) }
        #expect(unwatchedHeard == .init())
    }

    @Test func tonesAreDigitsUntilTelephoneEventsArrive() {
        var watch = PlayedAudioWatch(watchesFirstAudible: false, inBandDigitsAt: 8000)
        #expect(watch.detectsInBandDigits)
        #expect(heard(&watch, digit: "5") == "5")
        watch.telephoneEventsArrived()
        #expect(!watch.detectsInBandDigits)
        #expect(heard(&watch, digit: "7") == "")
    }

    /// 80 ms of the digit's tones, then 80 ms of silence, in ticks of 20 ms at 8 kHz.
    private func heard(_ watch: inout PlayedAudioWatch, digit: Character) -> String {
        let (low, high) = DTMFDigit(digit)!.frequencies
        let samples = (0..<640).map { index in
            Int16(7000 * sin(2 * .pi * low * Double(index) / 8000) + 7000 * sin(2 * .pi * high * Double(index) / 8000))
        } + [Int16](repeating: 0, count: 640)
        var found = ""
        samples.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: 160) {
                if let digit = watch.listen(to: UnsafeBufferPointer(rebasing: buffer[start..<(start + 160)])).digit { found.append(digit.character) }
            }
        }
        return found
    }
}
