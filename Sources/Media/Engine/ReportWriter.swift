/// A session's RTCP compound (RFC 3550 §6.1) in a buffer of its own: an SR once we have sent,
/// else an RR, with a block about the peer when something came from it, the SDES CNAME, and BYE
/// when leaving.
///
/// Owned by one session and used under its clock lock; its buffer is allocated once, here.
final class ReportWriter {
    /// Room for the compound and the SRTCP trailer the sender adds.
    let buffer: UnsafeMutableRawBufferPointer
    private let ssrc: UInt32
    private let cname: [UInt8]

    init(ssrc: UInt32, cname: String) {
        self.ssrc = ssrc
        self.cname = Array(cname.utf8.prefix(255))
        buffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Writes the compound at the start of `buffer` and returns its length; nil when it does not
    /// fit. `sent`: our sender info, nil before we have sent anything.
    func write(sent: SenderInfo?, about peer: ReportBlock?, goodbye: Bool) -> Int? {
        var writer = RTCPWriter(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<1200]))
        var block = peer ?? ReportBlock(ssrc: 0)
        let blockCount = peer == nil ? 0 : 1
        let ssrc = ssrc
        let reportWritten = withUnsafePointer(to: &block) { pointer -> Bool in
            let blocks = UnsafeBufferPointer(start: pointer, count: blockCount)
            if let sent { return (try? writer.senderReport(ssrc: ssrc, info: sent, blocks: blocks)) != nil }
            return (try? writer.receiverReport(ssrc: ssrc, blocks: blocks)) != nil
        }
        let cnameWritten = cname.withUnsafeBytes { bytes in
            (try? writer.sourceDescription(ssrc: ssrc, cname: bytes)) != nil
        }
        guard reportWritten, cnameWritten else { return nil }
        if goodbye, (try? writer.goodbye(ssrc: ssrc)) == nil { return nil }
        return writer.length
    }
}
