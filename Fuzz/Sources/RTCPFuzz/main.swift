import FuzzSupport
@testable import Media

/// One datagram per input through the RTCP compound reader (the allocation-free path the engine
/// uses) and the copying parser. Invariants: packets tile the compound without gaps or
/// overlap, bodies lie inside their packets, and both readers agree on the packet count.
func fuzzRTCP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    bytes.withUnsafeBytes { raw in
        for requireReportFirst in [true, false] {
            var walked = 0
            var end = 0
            var failed = false
            if var reader = try? RTCPCompoundReader(raw, requireReportFirst: requireReportFirst) {
                while true {
                    let header: RTCPHeader?
                    do { header = try reader.next() } catch { failed = true; break }
                    guard let header else { break }
                    fuzzCheck(header.range.lowerBound == end && header.range.upperBound <= raw.count, "packets do not tile the compound")
                    fuzzCheck(header.bodyRange.lowerBound <= header.bodyRange.upperBound, "body range inverted")
                    end = header.range.upperBound
                    walked += 1
                    if header.packetType == RTCPPacketType.senderReport || header.packetType == RTCPPacketType.receiverReport,
                       let report = try? reader.report(header) {
                        for index in 0..<report.blockCount { _ = reader.reportBlock(header, index: index) }
                    }
                }
                if !failed { fuzzCheck(end == raw.count, "the compound has bytes after its last packet") }
            }
            if let packets = try? RTCPPacket.parseCompound(raw, requireReportFirst: requireReportFirst) {
                fuzzCheck(!failed && packets.count == walked, "the two readers disagree")
            }
        }
    }
    return 0
}

runFuzzer(fuzzRTCP)
