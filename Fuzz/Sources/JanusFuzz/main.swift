import FuzzSupport
@testable import Signaling

/// One Janus frame per input into the Janus dialect's reader. Invariant: a frame it accepts
/// reads the same after one serialization of its JSON.
func fuzzJanus(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard let inbound = try? JanusInbound.parse(text) else { return 0 }
    if let value = try? JSONValue.parse(text) {
        fuzzCheck((try? JanusInbound.parse(value.serialized)) == inbound, "the frame reads differently after serialization")
    }
    return 0
}

runFuzzer(fuzzJanus)
