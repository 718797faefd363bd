import Media
import Testing

@Suite struct RTCPPacketTests {
    let block = ReportBlock(
        ssrc: 0xAABB_CCDD, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x1_0005, jitter: 77,
        lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x0002_8000)
    let info = SenderInfo(ntpTimestamp: 0xE000_0001_8000_0000, rtpTimestamp: 48000, packetCount: 50, octetCount: 4000)

    func compound() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0xEE, count: 512)
        let length = try buffer.withUnsafeMutableBytes { out in
            var writer = RTCPWriter(out)
            try [block].withUnsafeBufferPointer { try writer.senderReport(ssrc: 0x1111_1111, info: info, blocks: $0) }
            try Array("parley@test".utf8).withUnsafeBytes { try writer.sourceDescription(ssrc: 0x1111_1111, cname: $0) }
            try Array("done".utf8).withUnsafeBytes { try writer.goodbye(ssrc: 0x1111_1111, reason: $0) }
            return writer.length
        }
        return Array(buffer.prefix(length))
    }

    @Test func compoundRoundTripsSRSDESAndBYE() throws {
        let bytes = try compound()
        #expect(bytes.count % 4 == 0)
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets.count == 3)
        #expect(packets[0] == .senderReport(ssrc: 0x1111_1111, info: info, blocks: [block]))
        guard case .sourceDescription(let chunks) = packets[1] else { Issue.record("second packet is not SDES"); return }
        #expect(chunks.count == 1)
        #expect(chunks[0].ssrc == 0x1111_1111)
        #expect(chunks[0].cname == "parley@test")
        #expect(packets[2] == .goodbye(ssrcs: [0x1111_1111], reason: "done"))
    }

    @Test func receiverReportCarriesBlocksAndSignedLoss() throws {
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = try buffer.withUnsafeMutableBytes { out in
            var writer = RTCPWriter(out)
            try [block].withUnsafeBufferPointer { try writer.receiverReport(ssrc: 5, blocks: $0) }
            return writer.length
        }
        #expect(length == 32)
        // Cumulative lost -3 is 0xFFFFFD in 24 bits.
        #expect(Array(buffer[12..<16]) == [25, 0xFF, 0xFF, 0xFD])
        #expect(try RTCPPacket.parseCompound(Array(buffer.prefix(length))) == [.receiverReport(ssrc: 5, blocks: [block])])
    }

    @Test func compoundMustStartWithAReport() throws {
        var bytes = try compound()
        bytes.removeFirst(8 + SenderInfo.length + ReportBlock.length)
        #expect(throws: RTPError.invalidCompound("first packet is type 202, not SR or RR")) { try RTCPPacket.parseCompound(bytes) }
        // Reduced-size RTCP may start with anything.
        #expect(try RTCPPacket.parseCompound(bytes, requireReportFirst: false).count == 2)
    }

    @Test func lengthAndCountErrorsAreTyped() throws {
        let bytes = try compound()
        // Cut into the middle of the SDES packet.
        #expect(throws: RTPError.invalidLength(packetType: 202, declared: 24, available: 12)) {
            try RTCPPacket.parseCompound(Array(bytes.prefix(52 + 12)))
        }
        // An RR claiming 3 report blocks with room for none.
        #expect(throws: RTPError.invalidCount(packetType: 201, count: 3)) { try RTCPPacket.parseCompound([0x83, 201, 0, 1, 0, 0, 0, 1]) }
        #expect(throws: RTPError.unsupportedVersion(1)) { try RTCPPacket.parseCompound([0x40, 201, 0, 1, 0, 0, 0, 1]) }
        // Padding on a packet that is not last.
        var padded = bytes
        padded[0] |= 0x20
        #expect(throws: RTPError.invalidCompound("padding on a packet that is not last")) { try RTCPPacket.parseCompound(padded) }
    }

    @Test func garbageNeverTraps() throws {
        let valid = try compound()
        for length in 0...valid.count { _ = try? RTCPPacket.parseCompound(Array(valid.prefix(length))) }
        var generator = SplitMix(seed: 7)
        var parsed = 0
        for _ in 0..<5000 {
            var bytes = valid
            for _ in 0..<(1 + Int(generator.next() % 6)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            if (try? RTCPPacket.parseCompound(bytes, requireReportFirst: false)) != nil { parsed += 1 }
        }
        // Some mutations (inside report fields) still parse; the rest are rejected without trapping.
        #expect(parsed > 0 && parsed < 5000)
    }
}
