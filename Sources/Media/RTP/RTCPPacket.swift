/// RTCP packet types (RFC 3550 §12.1, RFC 4585).
package enum RTCPPacketType {
    package static let senderReport: UInt8 = 200
    package static let receiverReport: UInt8 = 201
    package static let sourceDescription: UInt8 = 202
    package static let goodbye: UInt8 = 203
    package static let application: UInt8 = 204
}

/// One reception report block (RFC 3550 §6.4.1).
package struct ReportBlock: Sendable, Equatable {
    package static let length = 24
    package var ssrc: UInt32
    /// Fraction of packets lost since the last report, as a fixed-point number over 256.
    package var fractionLost: UInt8
    /// Cumulative packets lost; 24-bit signed on the wire (duplicates can make it negative).
    package var cumulativeLost: Int32
    package var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    package var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from this source.
    package var lastSenderReport: UInt32
    /// Delay since that SR in units of 1/65536 s.
    package var delaySinceLastSenderReport: UInt32

    package init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequence: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> ReportBlock {
        let lost = bytes.uint24(at: offset + 5)
        // Sign-extend the 24-bit field.
        let cumulativeLost = Int32(bitPattern: lost & 0x80_0000 != 0 ? lost | 0xFF00_0000 : lost)
        return ReportBlock(
            ssrc: bytes.uint32(at: offset), fractionLost: bytes[offset + 4], cumulativeLost: cumulativeLost,
            extendedHighestSequence: bytes.uint32(at: offset + 8), jitter: bytes.uint32(at: offset + 12),
            lastSenderReport: bytes.uint32(at: offset + 16), delaySinceLastSenderReport: bytes.uint32(at: offset + 20))
    }

    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.put(ssrc, at: offset)
        let clamped = max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))
        let lost = UInt32(bitPattern: clamped) & 0xFF_FFFF
        buffer.put(UInt32(fractionLost) << 24 | lost, at: offset + 4)
        buffer.put(extendedHighestSequence, at: offset + 8)
        buffer.put(jitter, at: offset + 12)
        buffer.put(lastSenderReport, at: offset + 16)
        buffer.put(delaySinceLastSenderReport, at: offset + 20)
    }
}

/// The sender information of an SR (RFC 3550 §6.4.1).
package struct SenderInfo: Sendable, Equatable {
    package static let length = 20
    package var ntpTimestamp: UInt64
    package var rtpTimestamp: UInt32
    package var packetCount: UInt32
    package var octetCount: UInt32

    package init(ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
    }

    /// The middle 32 bits of the NTP timestamp, which an RR echoes as LSR.
    package var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }

    static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> SenderInfo {
        SenderInfo(
            ntpTimestamp: UInt64(bytes.uint32(at: offset)) << 32 | UInt64(bytes.uint32(at: offset + 4)),
            rtpTimestamp: bytes.uint32(at: offset + 8), packetCount: bytes.uint32(at: offset + 12),
            octetCount: bytes.uint32(at: offset + 16))
    }
}

/// The common header of one packet inside an RTCP compound packet, and where its body lies.
package struct RTCPHeader: Sendable, Equatable {
    package var packetType: UInt8
    /// The 5-bit count field: report blocks, SDES chunks or BYE sources (feedback format for FB).
    package var count: Int
    /// The whole packet, header included, within the compound.
    package var range: Range<Int>
    package var paddingLength: Int

    /// Body after the 4-byte header, without padding.
    package var bodyRange: Range<Int> { (range.lowerBound + 4)..<(range.upperBound - paddingLength) }
}

/// Walks the packets of an RTCP compound packet (RFC 3550 §6.1), validating each header.
/// Allocates nothing; the engine uses it directly on the receive path.
package struct RTCPCompoundReader {
    package let bytes: UnsafeRawBufferPointer
    private var offset = 0

    /// Checks the first header (RFC 3550 A.2: version 2, SR or RR first). `requireReportFirst`
    /// can be relaxed for reduced-size RTCP (RFC 5506).
    package init(_ bytes: UnsafeRawBufferPointer, requireReportFirst: Bool = true) throws(RTPError) {
        guard bytes.count >= 4 else { throw .truncated(length: bytes.count, needed: 4) }
        if requireReportFirst {
            let type = bytes[1]
            guard type == RTCPPacketType.senderReport || type == RTCPPacketType.receiverReport else {
                throw .invalidCompound("first packet is type \(type), not SR or RR")
            }
        }
        self.bytes = bytes
    }

    /// The next packet's header, or nil at the end of the compound.
    package mutating func next() throws(RTPError) -> RTCPHeader? {
        let remaining = bytes.count - offset
        guard remaining > 0 else { return nil }
        guard remaining >= 4 else { throw .truncated(length: remaining, needed: 4) }
        let first = bytes[offset]
        let version = first >> 6
        guard version == 2 else { throw .unsupportedVersion(version) }
        let packetType = bytes[offset + 1]
        let length = 4 * (Int(bytes.uint16(at: offset + 2)) + 1)
        guard length <= remaining else { throw .invalidLength(packetType: packetType, declared: length, available: remaining) }
        var paddingLength = 0
        if first & 0x20 != 0 {
            // Only the last packet of a compound may be padded.
            guard length == remaining else { throw .invalidCompound("padding on a packet that is not last") }
            let count = Int(bytes[offset + length - 1])
            guard count > 0, count <= length - 4 else { throw .invalidPadding(count: count, available: length - 4) }
            paddingLength = count
        }
        let header = RTCPHeader(packetType: packetType, count: Int(first & 0x1F), range: offset..<(offset + length), paddingLength: paddingLength)
        offset += length
        return header
    }

    /// SSRC of the sender of an SR or RR, and its sender info for an SR.
    package func report(_ header: RTCPHeader) throws(RTPError) -> (ssrc: UInt32, senderInfo: SenderInfo?, blockCount: Int) {
        let body = header.bodyRange
        let isSender = header.packetType == RTCPPacketType.senderReport
        let fixed = 4 + (isSender ? SenderInfo.length : 0)
        guard body.count >= fixed + header.count * ReportBlock.length else {
            throw .invalidCount(packetType: header.packetType, count: header.count)
        }
        let info = isSender ? SenderInfo.read(bytes, at: body.lowerBound + 4) : nil
        return (bytes.uint32(at: body.lowerBound), info, header.count)
    }

    /// The `index`th report block of an SR or RR already checked by `report(_:)`.
    package func reportBlock(_ header: RTCPHeader, index: Int) -> ReportBlock {
        let isSender = header.packetType == RTCPPacketType.senderReport
        let start = header.bodyRange.lowerBound + 4 + (isSender ? SenderInfo.length : 0) + index * ReportBlock.length
        return ReportBlock.read(bytes, at: start)
    }
}

/// A parsed RTCP packet with its items copied out (this allocates; the engine uses
/// `RTCPCompoundReader` instead).
package enum RTCPPacket: Sendable, Equatable {
    case senderReport(ssrc: UInt32, info: SenderInfo, blocks: [ReportBlock])
    case receiverReport(ssrc: UInt32, blocks: [ReportBlock])
    case sourceDescription([SourceDescriptionChunk])
    case goodbye(ssrcs: [UInt32], reason: String?)
    /// A type this module does not interpret (APP, feedback, XR...), kept by type and size.
    case other(packetType: UInt8, count: Int, length: Int)

    package struct SourceDescriptionChunk: Sendable, Equatable {
        package var ssrc: UInt32
        /// Item type (1 = CNAME) and its text.
        package var items: [(type: UInt8, text: String)]

        package init(ssrc: UInt32, items: [(type: UInt8, text: String)]) {
            self.ssrc = ssrc
            self.items = items
        }

        package var cname: String? { items.first { $0.type == 1 }?.text }

        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.ssrc == rhs.ssrc && lhs.items.map(\.type) == rhs.items.map(\.type) && lhs.items.map(\.text) == rhs.items.map(\.text)
        }
    }

    package static func parseCompound(_ bytes: UnsafeRawBufferPointer, requireReportFirst: Bool = true) throws(RTPError) -> [RTCPPacket] {
        var reader = try RTCPCompoundReader(bytes, requireReportFirst: requireReportFirst)
        var packets: [RTCPPacket] = []
        while let header = try reader.next() {
            packets.append(try parse(header, reader: reader))
        }
        guard !packets.isEmpty else { throw .invalidCompound("no packets") }
        return packets
    }

    package static func parseCompound(_ bytes: [UInt8], requireReportFirst: Bool = true) throws(RTPError) -> [RTCPPacket] {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try parseCompound(raw, requireReportFirst: requireReportFirst) }
        }
        return try result.get()
    }

    private static func parse(_ header: RTCPHeader, reader: RTCPCompoundReader) throws(RTPError) -> RTCPPacket {
        let bytes = reader.bytes
        switch header.packetType {
        case RTCPPacketType.senderReport, RTCPPacketType.receiverReport:
            let (ssrc, info, count) = try reader.report(header)
            let blocks = (0..<count).map { reader.reportBlock(header, index: $0) }
            if let info { return .senderReport(ssrc: ssrc, info: info, blocks: blocks) }
            return .receiverReport(ssrc: ssrc, blocks: blocks)
        case RTCPPacketType.sourceDescription:
            return .sourceDescription(try parseChunks(header, bytes))
        case RTCPPacketType.goodbye:
            let body = header.bodyRange
            guard body.count >= 4 * header.count else { throw .invalidCount(packetType: header.packetType, count: header.count) }
            let ssrcs = (0..<header.count).map { bytes.uint32(at: body.lowerBound + 4 * $0) }
            var reason: String?
            let reasonStart = body.lowerBound + 4 * header.count
            if reasonStart < body.upperBound {
                let length = Int(bytes[reasonStart])
                guard reasonStart + 1 + length <= body.upperBound else {
                    throw .invalidLength(packetType: header.packetType, declared: length, available: body.upperBound - reasonStart - 1)
                }
                reason = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(reasonStart + 1)..<(reasonStart + 1 + length)]), as: UTF8.self)
            }
            return .goodbye(ssrcs: ssrcs, reason: reason)
        default:
            return .other(packetType: header.packetType, count: header.count, length: header.range.count)
        }
    }

    private static func parseChunks(_ header: RTCPHeader, _ bytes: UnsafeRawBufferPointer) throws(RTPError) -> [SourceDescriptionChunk] {
        var chunks: [SourceDescriptionChunk] = []
        var offset = header.bodyRange.lowerBound
        let end = header.bodyRange.upperBound
        for _ in 0..<header.count {
            guard offset + 4 <= end else { throw .invalidCount(packetType: header.packetType, count: header.count) }
            var chunk = SourceDescriptionChunk(ssrc: bytes.uint32(at: offset), items: [])
            offset += 4
            while true {
                guard offset < end else { throw .invalidLength(packetType: header.packetType, declared: offset + 1, available: end) }
                let type = bytes[offset]
                if type == 0 {
                    // The item list ends with a zero byte and pads to the next 32-bit boundary.
                    offset = (offset + 4) & ~3
                    break
                }
                guard offset + 2 <= end else { throw .truncated(length: end - offset, needed: 2) }
                let length = Int(bytes[offset + 1])
                guard offset + 2 + length <= end else {
                    throw .invalidLength(packetType: header.packetType, declared: length, available: end - offset - 2)
                }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + 2 + length)]), as: UTF8.self)
                chunk.items.append((type, text))
                offset += 2 + length
            }
            chunks.append(chunk)
        }
        return chunks
    }
}

/// Writes RTCP packets one after another into a buffer, making a compound packet. Allocates nothing.
package struct RTCPWriter {
    package let buffer: UnsafeMutableRawBufferPointer
    package private(set) var length = 0

    package init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    private func reserve(_ bytes: Int) throws(RTPError) {
        guard length + bytes <= buffer.count else { throw .bufferTooSmall(needed: length + bytes, capacity: buffer.count) }
    }

    private func writeHeader(count: Int, type: UInt8, totalLength: Int) {
        buffer[length] = 2 << 6 | UInt8(count)
        buffer[length + 1] = type
        buffer.put(UInt16(totalLength / 4 - 1), at: length + 2)
    }

    package mutating func senderReport(ssrc: UInt32, info: SenderInfo, blocks: UnsafeBufferPointer<ReportBlock>) throws(RTPError) {
        guard blocks.count <= 31 else { throw .fieldOutOfRange("report block count \(blocks.count)") }
        let total = 8 + SenderInfo.length + blocks.count * ReportBlock.length
        try reserve(total)
        writeHeader(count: blocks.count, type: RTCPPacketType.senderReport, totalLength: total)
        buffer.put(ssrc, at: length + 4)
        buffer.put(UInt32(truncatingIfNeeded: info.ntpTimestamp >> 32), at: length + 8)
        buffer.put(UInt32(truncatingIfNeeded: info.ntpTimestamp), at: length + 12)
        buffer.put(info.rtpTimestamp, at: length + 16)
        buffer.put(info.packetCount, at: length + 20)
        buffer.put(info.octetCount, at: length + 24)
        for (index, block) in blocks.enumerated() { block.write(into: buffer, at: length + 28 + index * ReportBlock.length) }
        length += total
    }

    package mutating func receiverReport(ssrc: UInt32, blocks: UnsafeBufferPointer<ReportBlock>) throws(RTPError) {
        guard blocks.count <= 31 else { throw .fieldOutOfRange("report block count \(blocks.count)") }
        let total = 8 + blocks.count * ReportBlock.length
        try reserve(total)
        writeHeader(count: blocks.count, type: RTCPPacketType.receiverReport, totalLength: total)
        buffer.put(ssrc, at: length + 4)
        for (index, block) in blocks.enumerated() { block.write(into: buffer, at: length + 8 + index * ReportBlock.length) }
        length += total
    }

    /// An SDES packet with one chunk carrying CNAME (RFC 3550 §6.5.1).
    package mutating func sourceDescription(ssrc: UInt32, cname: UnsafeRawBufferPointer) throws(RTPError) {
        guard cname.count <= 255 else { throw .fieldOutOfRange("CNAME length \(cname.count)") }
        // chunk: SSRC, CNAME item (type, length, text), then a zero byte padded to 32 bits
        let chunk = (4 + 2 + cname.count + 1 + 3) & ~3
        let total = 4 + chunk
        try reserve(total)
        writeHeader(count: 1, type: RTCPPacketType.sourceDescription, totalLength: total)
        buffer.put(ssrc, at: length + 4)
        buffer[length + 8] = 1
        buffer[length + 9] = UInt8(cname.count)
        for (index, byte) in cname.enumerated() { buffer[length + 10 + index] = byte }
        for index in (length + 10 + cname.count)..<(length + total) { buffer[index] = 0 }
        length += total
    }

    package mutating func goodbye(ssrc: UInt32, reason: UnsafeRawBufferPointer? = nil) throws(RTPError) {
        let reasonLength = reason?.count ?? 0
        guard reasonLength <= 255 else { throw .fieldOutOfRange("BYE reason length \(reasonLength)") }
        let total = 8 + (reason == nil ? 0 : (1 + reasonLength + 3) & ~3)
        try reserve(total)
        writeHeader(count: 1, type: RTCPPacketType.goodbye, totalLength: total)
        buffer.put(ssrc, at: length + 4)
        if let reason {
            buffer[length + 8] = UInt8(reasonLength)
            for (index, byte) in reason.enumerated() { buffer[length + 9 + index] = byte }
            for index in (length + 9 + reasonLength)..<(length + total) { buffer[index] = 0 }
        }
        length += total
    }
}
