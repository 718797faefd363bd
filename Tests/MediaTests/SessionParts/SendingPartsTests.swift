import Foundation
@testable import Media
import Testing

/// Counts up from 1, one sample at a time: which samples went where is visible.
private final class RampSource: AudioSource {
    private var next: Int16 = 1
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        for index in frame.indices {
            frame[index] = next
            next &+= 1
        }
        return true
    }
}

/// Hands every frame pre-encoded as the bytes 1, 2, 3.
private final class PreEncodedSource: EncodedAudioSource {
    private(set) var asked: [EncodedFrameFormat] = []
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        frame.update(repeating: 0)
        return true
    }
    func encodedFrame(_ format: EncodedFrameFormat, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        asked.append(format)
        payload.copyBytes(from: [1, 2, 3])
        return 3
    }
}

/// The parts of a session's sending side, each on its own.
@Suite struct SendingPartsTests {
    @Test func fortyMillisecondPacketsTakeTwoTicksOfSamplesInOrder() {
        let capture = CaptureBuffer(tickSamples: 160, frameSamples: 320)
        let source = RampSource()
        var frames: [[Int16]] = []
        for _ in 0..<4 { capture.capture(from: source, muted: false) { frames.append(Array($0)) } }
        #expect(frames.count == 2)
        #expect(frames.first == (1...320).map { Int16($0) })
        #expect(frames.last == (321...640).map { Int16($0) })
        #expect(Array(capture.localFrame) == (481...640).map { Int16($0) })
    }

    @Test func tenMillisecondPacketsCutATickInTwoAndMutedTicksAreSilence() {
        let capture = CaptureBuffer(tickSamples: 160, frameSamples: 80)
        let source = RampSource()
        var frames: [[Int16]] = []
        capture.capture(from: source, muted: false) { frames.append(Array($0)) }
        capture.capture(from: source, muted: true) { frames.append(Array($0)) }
        #expect(frames.map(\.count) == [80, 80, 80, 80])
        #expect(frames[1] == (81...160).map { Int16($0) })
        #expect(frames[2].allSatisfy { $0 == 0 } && frames[3].allSatisfy { $0 == 0 })
        #expect(capture.localFrame.allSatisfy { $0 == 0 })
    }

    @Test func ownEncoderEncodesWhenTheSourceHasNoEncodedFrames() throws {
        let format = EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20)
        let encoding = try FrameEncoding(format: format, source: RampSource(), sourceServesTicks: true, followsClockComplexity: false)
        let pcm = [Int16](repeating: 1000, count: 160)
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: 1400, alignment: 16)
        defer { payload.deallocate() }
        let encoded = pcm.withUnsafeBufferPointer { encoding.encode($0, muted: false, into: payload) }
        #expect(encoded == FrameEncoding.Payload(length: 160, preEncoded: false))
        #expect(encoding.opusComplexity == nil)
    }

    @Test func aPreEncodedSourceServesItsFramesUnlessMutedOrTheFramesAreNotTicks() throws {
        let format = EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20)
        let source = PreEncodedSource()
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: 1400, alignment: 16)
        defer { payload.deallocate() }
        let silence = [Int16](repeating: 0, count: 160)
        let encoding = try FrameEncoding(format: format, source: source, sourceServesTicks: true, followsClockComplexity: false)
        #expect(silence.withUnsafeBufferPointer { encoding.encode($0, muted: false, into: payload) } == .init(length: 3, preEncoded: true))
        #expect(Array(payload.prefix(3)) == [1, 2, 3])
        #expect(source.asked == [format])
        #expect(silence.withUnsafeBufferPointer { encoding.encode($0, muted: true, into: payload) } == .init(length: 160, preEncoded: false))
        #expect(source.asked.count == 1)

        let longFrames = try FrameEncoding(format: format, source: source, sourceServesTicks: false, followsClockComplexity: false)
        #expect(silence.withUnsafeBufferPointer { longFrames.encode($0, muted: false, into: payload) } == .init(length: 160, preEncoded: false))
        #expect(source.asked.count == 1)
    }

    @Test func anEncodedFrameThatDoesNotFitIsNotSent() throws {
        let encoding = try FrameEncoding(format: EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20), source: RampSource(),
                                         sourceServesTicks: true, followsClockComplexity: false)
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: 10, alignment: 16)
        defer { small.deallocate() }
        let pcm = [Int16](repeating: 1000, count: 160)
        #expect(pcm.withUnsafeBufferPointer { encoding.encode($0, muted: false, into: small) } == nil)
    }

    @Test func reportsAreAReceiverReportBeforeWeSendAndASenderReportAfterWithGoodbyeWhenLeaving() throws {
        let writer = ReportWriter(ssrc: 0x1234, cname: "parley@test")
        let receiverOnly = try #require(writer.write(sent: nil, about: nil, goodbye: false))
        #expect(try packetTypes(writer.buffer, receiverOnly) == [RTCPPacketType.receiverReport, RTCPPacketType.sourceDescription])

        let info = SenderInfo(ntpTimestamp: 1 << 32, rtpTimestamp: 960, packetCount: 50, octetCount: 8000)
        let leaving = try #require(writer.write(sent: info, about: ReportBlock(ssrc: 0x99), goodbye: true))
        #expect(try packetTypes(writer.buffer, leaving) == [RTCPPacketType.senderReport, RTCPPacketType.sourceDescription, RTCPPacketType.goodbye])
        var reader = try RTCPCompoundReader(UnsafeRawBufferPointer(rebasing: writer.buffer[0..<leaving]))
        let report = try #require(try reader.next())
        let (ssrc, sent, blocks) = try reader.report(report)
        #expect(ssrc == 0x1234 && sent == info && blocks == 1)
        #expect(reader.reportBlock(report, index: 0).ssrc == 0x99)
    }

    private func packetTypes(_ buffer: UnsafeMutableRawBufferPointer, _ length: Int) throws -> [UInt8] {
        var reader = try RTCPCompoundReader(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        var types: [UInt8] = []
        while let header = try reader.next() { types.append(header.packetType) }
        return types
    }
}
