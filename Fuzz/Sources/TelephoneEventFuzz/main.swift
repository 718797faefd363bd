import FuzzSupport
@testable import Media

/// RFC 4733 payloads: each 4-byte slice of the input is one telephone-event payload. Invariants:
/// an event written back gives the same 4 bytes (less the reserved bit); the DTMF sender, fed
/// the input's digits, produces a bounded number of packets per digit and ends each digit.
func fuzzTelephoneEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    var index = 0
    while index < bytes.count {
        let slice = Array(bytes[index..<min(index + 4, bytes.count)])
        let event = slice.withUnsafeBytes { try? TelephoneEvent.parse($0) }
        if let event {
            var written = [UInt8](repeating: 0, count: 4)
            written.withUnsafeMutableBytes { event.write(into: $0) }
            var expected = slice
            expected[1] &= 0xBF  // the reserved bit is not kept
            fuzzCheck(written == expected, "telephone-event does not round-trip")
            _ = DTMFDigit(event: event.event)
        } else {
            fuzzCheck(slice.count < 4, "a 4-byte payload was refused")
        }
        index += 4
    }

    // The receive path: 8-byte records of (timestamp, payload); a digit is reported at most
    // once per distinct timestamp.
    var receiver = DTMFReceiver()
    var reported = 0
    var timestamps = Set<UInt32>()
    index = 0
    while index + 8 <= bytes.count {
        let timestamp = bytes[index..<(index + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let payload = Array(bytes[(index + 4)..<(index + 8)])
        if let event = payload.withUnsafeBytes({ try? TelephoneEvent.parse($0) }), receiver.receive(event, timestamp: timestamp) != nil {
            reported += 1
            timestamps.insert(timestamp)
        }
        index += 8
    }
    fuzzCheck(reported <= bytes.count / 8, "more digits than packets")

    let sender = DTMFSender(clockRate: 8000)
    let digits = String(bytes.prefix(16).compactMap { DTMFDigit(event: $0 % 20)?.character })
    let queued = sender.enqueue(digits) ? digits.count : 0
    var packets = 0
    var ends = 0
    var timestamp: UInt32 = 0
    for _ in 0..<(queued * 40 + 10) {
        timestamp &+= 160
        if let packet = sender.step(timestamp: timestamp, frameSamples: 160) {
            packets += 1
            if packet.event.isEnd { ends += 1 }
        }
    }
    fuzzCheck(sender.isIdle, "the sender did not finish \(queued) digits")
    fuzzCheck(ends == queued * DTMFSender.endPacketCopies, "\(queued) digits gave \(ends) end packets")
    fuzzCheck(packets <= queued * 20, "\(queued) digits gave \(packets) packets")
    return 0
}

runFuzzer(fuzzTelephoneEvent)
