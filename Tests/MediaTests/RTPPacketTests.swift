import Media
import Testing

@Suite struct RTPPacketTests {
    func build(
        _ fields: RTPHeaderFields, payload: [UInt8], csrcs: [UInt32] = [], extensionProfile: UInt16? = nil,
        extensionData: [UInt8]? = nil, padding: Int = 0
    ) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0xEE, count: 1500)
        let length = try buffer.withUnsafeMutableBytes { out in
            try payload.withUnsafeBytes { payloadBytes in
                try csrcs.withUnsafeBufferPointer { csrcBuffer in
                    try (extensionData ?? []).withUnsafeBytes { extensionBytes in
                        try RTPPacketWriter.write(
                            fields, payload: payloadBytes, csrcs: csrcBuffer, extensionProfile: extensionProfile,
                            extensionData: extensionData == nil ? nil : extensionBytes, paddingLength: padding, into: out)
                    }
                }
            }
        }
        return Array(buffer.prefix(length))
    }

    @Test func writesTheFixedHeaderBitForBit() throws {
        let bytes = try build(RTPHeaderFields(marker: true, payloadType: 111, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304), payload: [9, 8, 7])
        #expect(bytes == [0x80, 0x80 | 111, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4, 9, 8, 7])
    }

    @Test func roundTripsEveryField() throws {
        let fields = RTPHeaderFields(marker: false, payloadType: 0, sequenceNumber: 65535, timestamp: 160, ssrc: 0xCAFE_BABE)
        let bytes = try build(fields, payload: [1, 2, 3, 4, 5], csrcs: [11, 22], extensionProfile: 0xBEDE, extensionData: [0x10, 0xAA, 0, 0, 0x22], padding: 3)
        let packet = try RTPPacket.parse(bytes)
        #expect(packet.marker == false)
        #expect(packet.payloadType == 0)
        #expect(packet.sequenceNumber == 65535)
        #expect(packet.timestamp == 160)
        #expect(packet.ssrc == 0xCAFE_BABE)
        #expect(packet.csrcCount == 2)
        bytes.withUnsafeBytes { raw in
            #expect(packet.csrc(0, in: raw) == 11)
            #expect(packet.csrc(1, in: raw) == 22)
        }
        #expect(packet.extensionProfile == 0xBEDE)
        // 5 bytes of extension data round up to two 32-bit words.
        #expect(packet.extensionRange.count == 8)
        #expect(Array(bytes[packet.extensionRange].prefix(5)) == [0x10, 0xAA, 0, 0, 0x22])
        #expect(packet.paddingLength == 3)
        #expect(Array(bytes[packet.payloadRange]) == [1, 2, 3, 4, 5])
    }

    @Test func rejectsShortPacketsWithTypedErrors() throws {
        #expect(throws: RTPError.truncated(length: 11, needed: 12)) { try RTPPacket.parse([UInt8](repeating: 0x80, count: 11)) }
        // Two CSRCs announced, none present.
        var header: [UInt8] = [0x82, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]
        #expect(throws: RTPError.truncated(length: 12, needed: 20)) { try RTPPacket.parse(header) }
        // Extension announced with 2 words, only 1 present.
        header = [0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0, 2, 1, 2, 3, 4]
        #expect(throws: RTPError.truncated(length: 20, needed: 24)) { try RTPPacket.parse(header) }
    }

    @Test func rejectsWrongVersionAndBadPadding() throws {
        #expect(throws: RTPError.unsupportedVersion(1)) { try RTPPacket.parse([0x40] + [UInt8](repeating: 0, count: 11)) }
        // Padding count larger than the bytes after the header.
        let padded: [UInt8] = [0xA0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 9]
        #expect(throws: RTPError.invalidPadding(count: 9, available: 2)) { try RTPPacket.parse(padded) }
        // Padding bit with a zero count.
        #expect(throws: RTPError.invalidPadding(count: 0, available: 2)) { try RTPPacket.parse([0xA0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 5, 0]) }
    }

    @Test func builderRefusesSmallBuffersAndBadFields() throws {
        var small = [UInt8](repeating: 0, count: 13)
        let fields = RTPHeaderFields(payloadType: 8, sequenceNumber: 1, timestamp: 1, ssrc: 1)
        #expect(throws: RTPError.bufferTooSmall(needed: 14, capacity: 13)) {
            try small.withUnsafeMutableBytes { out in try [UInt8](repeating: 1, count: 2).withUnsafeBytes { try RTPPacketWriter.write(fields, payload: $0, into: out) } }
        }
        #expect(throws: RTPError.self) { try build(RTPHeaderFields(payloadType: 200, sequenceNumber: 1, timestamp: 1, ssrc: 1), payload: []) }
    }

    /// Every truncation and a few thousand random mutations of valid packets parse or throw; none traps.
    @Test func garbageNeverTraps() throws {
        let valid = try build(RTPHeaderFields(payloadType: 96, sequenceNumber: 7, timestamp: 7, ssrc: 7), payload: [1, 2, 3], csrcs: [1], extensionProfile: 0x1000, extensionData: [1, 2, 3, 4], padding: 2)
        for length in 0...valid.count {
            let prefix = Array(valid.prefix(length))
            if let packet = try? RTPPacket.parse(prefix) {
                #expect(packet.payloadRange.upperBound <= prefix.count)
            }
        }
        var generator = SplitMix(seed: 42)
        var parsed = 0
        for _ in 0..<5000 {
            var bytes = valid
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            if let packet = try? RTPPacket.parse(bytes) {
                parsed += 1
                #expect(packet.payloadRange.lowerBound <= packet.payloadRange.upperBound)
                #expect(packet.payloadRange.upperBound + packet.paddingLength == bytes.count)
            }
        }
        #expect(parsed > 0)
    }

    @Test func classifiesByFirstByteAndRTCPType() {
        func kind(_ bytes: [UInt8]) -> PacketKind { bytes.withUnsafeBytes { PacketKind.classify($0) } }
        #expect(kind([0x00, 0x01]) == .stun)
        #expect(kind([22, 0xFE]) == .dtls)
        #expect(kind([0x80, 111]) == .rtp)
        #expect(kind([0x80, 0x80 | 111]) == .rtp)
        #expect(kind([0x80, 200]) == .rtcp)
        #expect(kind([0x81, 201]) == .rtcp)
        #expect(kind([0x80, 224]) == .rtp)
        #expect(kind([64]) == .unknown)
        #expect(kind([]) == .unknown)
    }
}

/// Deterministic pseudo-random numbers for fuzz-style tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
