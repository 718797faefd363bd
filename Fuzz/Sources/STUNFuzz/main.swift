import FuzzSupport
@testable import ICE

/// STUN messages as Parley reads them itself (the TURN allocation probe; libnice reads the
/// media path's). Invariants: a message that decodes re-encodes to bytes that decode to the
/// same message, and its attributes fit in the bytes it came from.
func fuzzSTUN(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let message = STUNMessage.decode(bytes) else { return 0 }
    _ = message.error
    _ = message.isSuccess
    _ = message.attribute(.errorCode)
    fuzzCheck(message.attributes.reduce(0) { $0 + 4 + $1.1.count } <= bytes.count - 20, "attributes larger than the message")
    let again = STUNMessage.decode(message.encoded())
    fuzzCheck(again.map { $0.type == message.type && $0.transactionID == message.transactionID } == true, "re-encoded message reads differently")
    fuzzCheck(again.map { $0.attributes.map(\.0) == message.attributes.map(\.0) && $0.attributes.map(\.1) == message.attributes.map(\.1) } == true, "re-encoded attributes differ")
    _ = message.encoded(integrityKey: [1, 2, 3], fingerprint: true)
    return 0
}

runFuzzer(fuzzSTUN)
