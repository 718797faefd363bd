/// What a SIP flow reports, in order: `opened` (or `closed` with why it could not open), then
/// messages, unreadable messages and keep-alive answers, then `closed` once.
package enum SIPFlowEvent: Sendable, Equatable {
    /// The flow is open; `localAddress` and `localPort` are our end of the socket (for Via and
    /// Contact), `nil` on WebSocket flows, whose Contact host is `.invalid` (RFC 7118 §5.2).
    case opened(localAddress: String?, localPort: Int?)
    case message(SIPMessage)
    /// A datagram or WebSocket message that is not SIP was dropped; the flow goes on. (On a
    /// stream the framing is lost, and `closed(.framingLost)` follows instead.)
    case malformed(SIPParseError)
    /// The server answered a CRLF keep-alive (RFC 5626 §4.4.1).
    case keepAlivePong
    /// The end: nil when we closed it, else why it ended or never opened.
    case closed(SIPTransportError?)
}
