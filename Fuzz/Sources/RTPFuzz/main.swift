import FuzzSupport
@testable import Media

/// One datagram per input through the classifier and the RTP header parser, and a stream of
/// them (the input cut into 20-byte packets' sequence numbers) through reception statistics.
/// Invariants: every range the parser reports lies inside the packet; writing the parsed
/// header back gives the same header bytes; statistics never count more received than fed.
func fuzzRTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    bytes.withUnsafeBytes { raw in
        _ = PacketKind.classify(raw)
        guard let packet = try? RTPPacket.parse(raw) else { return }
        fuzzCheck(packet.payloadRange.lowerBound >= RTPPacket.fixedHeaderLength && packet.payloadRange.upperBound <= raw.count, "payload outside the packet")
        fuzzCheck(packet.payloadRange.upperBound + packet.paddingLength == raw.count, "padding and payload do not add up")
        fuzzCheck(packet.extensionRange.upperBound <= packet.payloadRange.lowerBound, "extension overlaps the payload")
        for index in 0..<packet.csrcCount { _ = packet.csrc(index, in: raw) }

        let csrcs = (0..<packet.csrcCount).map { packet.csrc($0, in: raw) }
        let fields = RTPHeaderFields(marker: packet.marker, payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, ssrc: packet.ssrc)
        var rebuilt = [UInt8](repeating: 0, count: raw.count + 16)
        let headerEnd = try? csrcs.withUnsafeBufferPointer { csrcBuffer in
            try rebuilt.withUnsafeMutableBytes { buffer in
                try RTPPacketWriter.writeHeader(
                    fields, csrcs: csrcBuffer, extensionProfile: packet.extensionProfile,
                    extensionData: packet.extensionProfile == nil ? nil : UnsafeRawBufferPointer(rebasing: raw[packet.extensionRange]),
                    paddingLength: packet.paddingLength, into: buffer)
            }
        }
        fuzzCheck(headerEnd == packet.payloadRange.lowerBound, "rewritten header has another length")
        if let headerEnd {
            // The X and P bits and everything after the first byte must match; only the bits
            // the parser ignores (none) could differ.
            fuzzCheck(rebuilt[0..<headerEnd].elementsEqual(raw[0..<headerEnd]), "rewritten header differs")
        }
    }

    var statistics = ReceptionStatistics()
    var fed: UInt64 = 0
    var index = 0
    while index + 4 <= bytes.count {
        let sequence = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        let timestamp = UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
        _ = statistics.record(sequence: sequence, rtpTimestamp: timestamp &* 160, arrival: UInt32(index) &* 160)
        fed += 1
        index += 4
    }
    fuzzCheck(statistics.received <= fed, "received \(statistics.received) of \(fed)")
    _ = statistics.makeReportBlock(ssrc: 1, lastSenderReport: 0, delaySinceLastSenderReport: 0)
    return 0
}

runFuzzer(fuzzRTP)
