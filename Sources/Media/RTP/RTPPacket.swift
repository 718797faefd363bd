/// An RTP packet (RFC 3550 §5.1) described by offsets into the bytes it was parsed from, so that
/// parsing allocates nothing. CSRCs, the header extension and the payload are read from those bytes.
package struct RTPPacket: Sendable, Equatable {
    package static let fixedHeaderLength = 12
    package static let version: UInt8 = 2

    package var marker: Bool
    package var payloadType: UInt8
    package var sequenceNumber: UInt16
    package var timestamp: UInt32
    package var ssrc: UInt32
    package var csrcCount: Int
    /// The 16-bit "defined by profile" field of the header extension (0xBEDE for RFC 8285
    /// one-byte elements), when the X bit is set.
    package var extensionProfile: UInt16?
    /// Where the header extension's data (after its 4-byte header) lies.
    package var extensionRange: Range<Int>
    package var payloadRange: Range<Int>
    package var paddingLength: Int

    var payloadLength: Int { payloadRange.count }

    /// Parses the header of `bytes`. Throws a typed error for anything malformed; never traps.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPError) -> RTPPacket {
        guard bytes.count >= fixedHeaderLength else { throw .truncated(length: bytes.count, needed: fixedHeaderLength) }
        let first = bytes[0]
        let version = first >> 6
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        var offset = fixedHeaderLength + 4 * csrcCount
        guard bytes.count >= offset else { throw .truncated(length: bytes.count, needed: offset) }

        var extensionProfile: UInt16?
        var extensionRange = offset..<offset
        if hasExtension {
            guard bytes.count >= offset + 4 else { throw .truncated(length: bytes.count, needed: offset + 4) }
            extensionProfile = bytes.uint16(at: offset)
            let words = Int(bytes.uint16(at: offset + 2))
            let end = offset + 4 + 4 * words
            guard bytes.count >= end else { throw .truncated(length: bytes.count, needed: end) }
            extensionRange = (offset + 4)..<end
            offset = end
        }

        var paddingLength = 0
        if hasPadding {
            let available = bytes.count - offset
            let count = available > 0 ? Int(bytes[bytes.count - 1]) : 0
            guard count > 0, count <= available else { throw .invalidPadding(count: count, available: available) }
            paddingLength = count
        }
        let second = bytes[1]
        return RTPPacket(
            marker: second & 0x80 != 0, payloadType: second & 0x7F, sequenceNumber: bytes.uint16(at: 2),
            timestamp: bytes.uint32(at: 4), ssrc: bytes.uint32(at: 8), csrcCount: csrcCount,
            extensionProfile: extensionProfile, extensionRange: extensionRange,
            payloadRange: offset..<(bytes.count - paddingLength), paddingLength: paddingLength)
    }

    package static func parse(_ bytes: [UInt8]) throws(RTPError) -> RTPPacket {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(RTPError) in try parse(raw) } }
        return try result.get()
    }

    /// The `index`th contributing source, read from the bytes this packet was parsed from.
    package func csrc(_ index: Int, in bytes: UnsafeRawBufferPointer) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return bytes.uint32(at: Self.fixedHeaderLength + 4 * index)
    }
}

/// The fields a sender chooses for one RTP packet.
package struct RTPHeaderFields: Sendable, Equatable {
    package var marker: Bool
    package var payloadType: UInt8
    package var sequenceNumber: UInt16
    package var timestamp: UInt32
    package var ssrc: UInt32

    package init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }
}

package enum RTPPacketWriter {
    /// Bytes the header takes before the payload.
    static func headerLength(csrcCount: Int, extensionLength: Int?) -> Int {
        RTPPacket.fixedHeaderLength + 4 * csrcCount + (extensionLength.map { 4 + ($0 + 3) / 4 * 4 } ?? 0)
    }

    /// Writes the header into `buffer` and returns where the payload starts. The caller writes the
    /// payload there (no copy) and then calls `finish` for padding, or uses `write` below.
    package static func writeHeader(
        _ fields: RTPHeaderFields, csrcs: UnsafeBufferPointer<UInt32> = UnsafeBufferPointer(start: nil, count: 0),
        extensionProfile: UInt16? = nil, extensionData: UnsafeRawBufferPointer? = nil, paddingLength: Int = 0,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        guard fields.payloadType < 128 else { throw .fieldOutOfRange("payload type \(fields.payloadType)") }
        guard csrcs.count <= 15 else { throw .fieldOutOfRange("CSRC count \(csrcs.count)") }
        guard paddingLength >= 0, paddingLength < 256 else { throw .fieldOutOfRange("padding length \(paddingLength)") }
        let extensionLength = extensionProfile == nil ? nil : (extensionData?.count ?? 0)
        if let extensionLength, extensionLength > 4 * 0xFFFF { throw .fieldOutOfRange("header extension length \(extensionLength)") }
        let headerLength = headerLength(csrcCount: csrcs.count, extensionLength: extensionLength)
        guard buffer.count >= headerLength else { throw .bufferTooSmall(needed: headerLength, capacity: buffer.count) }

        var first = RTPPacket.version << 6 | UInt8(csrcs.count)
        if paddingLength > 0 { first |= 0x20 }
        if extensionProfile != nil { first |= 0x10 }
        buffer[0] = first
        buffer[1] = (fields.marker ? 0x80 : 0) | fields.payloadType
        buffer.put(fields.sequenceNumber, at: 2)
        buffer.put(fields.timestamp, at: 4)
        buffer.put(fields.ssrc, at: 8)
        var offset = RTPPacket.fixedHeaderLength
        for csrc in csrcs {
            buffer.put(csrc, at: offset)
            offset += 4
        }
        if let extensionProfile, let extensionLength {
            let words = (extensionLength + 3) / 4
            buffer.put(extensionProfile, at: offset)
            buffer.put(UInt16(words), at: offset + 2)
            offset += 4
            if let extensionData, extensionLength > 0 {
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + extensionLength)]).copyMemory(from: extensionData)
            }
            for index in (offset + extensionLength)..<(offset + 4 * words) { buffer[index] = 0 }
            offset += 4 * words
        }
        return offset
    }

    /// Writes a whole packet (header, payload, padding) and returns its length.
    package static func write(
        _ fields: RTPHeaderFields, payload: UnsafeRawBufferPointer,
        csrcs: UnsafeBufferPointer<UInt32> = UnsafeBufferPointer(start: nil, count: 0),
        extensionProfile: UInt16? = nil, extensionData: UnsafeRawBufferPointer? = nil, paddingLength: Int = 0,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        let payloadStart = try writeHeader(
            fields, csrcs: csrcs, extensionProfile: extensionProfile, extensionData: extensionData,
            paddingLength: paddingLength, into: buffer)
        let total = payloadStart + payload.count + paddingLength
        guard buffer.count >= total else { throw .bufferTooSmall(needed: total, capacity: buffer.count) }
        if payload.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart..<(payloadStart + payload.count)]).copyMemory(from: payload)
        }
        if paddingLength > 0 {
            for index in (total - paddingLength)..<(total - 1) { buffer[index] = 0 }
            buffer[total - 1] = UInt8(paddingLength)
        }
        return total
    }
}
