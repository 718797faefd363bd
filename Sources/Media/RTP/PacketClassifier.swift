/// What a datagram arriving on the media transport is, by its first bytes (RFC 7983, RFC 5761 §4).
package enum PacketKind: Sendable, Equatable {
    case stun
    case dtls
    case rtp
    case rtcp
    case unknown

    package static func classify(_ bytes: UnsafeRawBufferPointer) -> PacketKind {
        guard let first = bytes.first else { return .unknown }
        switch first {
        case 0...3: return .stun
        case 20...63: return .dtls
        case 128...191:
            guard bytes.count >= 2 else { return .unknown }
            // With rtcp-mux, RTCP packet types 192-223 occupy what would be RTP payload types 64-95
            // with the marker bit set.
            return (192...223).contains(bytes[1]) ? .rtcp : .rtp
        default: return .unknown
        }
    }
}
