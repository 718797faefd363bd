/// Why an RTP or RTCP packet was rejected. Every malformed packet from the network maps to one of
/// these; none is fatal to a call.
package enum RTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the header (or a declared part of it) needs.
    case truncated(length: Int, needed: Int)
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The padding count is zero or larger than what follows the header.
    case invalidPadding(count: Int, available: Int)
    /// An RTCP packet's length field does not fit the compound packet.
    case invalidLength(packetType: UInt8, declared: Int, available: Int)
    /// An RTCP packet's item count does not fit its length.
    case invalidCount(packetType: UInt8, count: Int)
    /// An RTCP compound packet that is empty or whose first packet is neither SR nor RR.
    case invalidCompound(String)
    /// A builder was given a buffer too small for the packet.
    case bufferTooSmall(needed: Int, capacity: Int)
    /// A builder was given a field that does not fit its width.
    case fieldOutOfRange(String)

    package var description: String {
        switch self {
        case .truncated(let length, let needed): "packet truncated: \(length) bytes, at least \(needed) needed"
        case .unsupportedVersion(let version): "unsupported RTP version \(version) (expected 2)"
        case .invalidPadding(let count, let available): "invalid padding count \(count) with \(available) bytes after the header"
        case .invalidLength(let type, let declared, let available):
            "RTCP packet type \(type) declares \(declared) bytes but \(available) remain"
        case .invalidCount(let type, let count): "RTCP packet type \(type) count \(count) does not fit its length"
        case .invalidCompound(let reason): "invalid RTCP compound packet: \(reason)"
        case .bufferTooSmall(let needed, let capacity): "buffer too small: \(needed) bytes needed, \(capacity) available"
        case .fieldOutOfRange(let field): "\(field) is out of range"
        }
    }
}
