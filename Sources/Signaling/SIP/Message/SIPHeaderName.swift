/// A header field's name, compared as SIP compares them: without regard to case, and with each
/// compact form equal to its long form (RFC 3261 §7.3.3, and the registry of compact forms).
package struct SIPHeaderName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The long form, in the capitalisation RFC 3261 writes it, used when we write the field.
    package let canonical: String
    private let key: String

    package init(_ name: String) {
        let lower = name.lowercased()
        if let long = Self.compactForms[lower] {
            canonical = long
        } else {
            canonical = Self.knownNames[lower] ?? name
        }
        key = canonical.lowercased()
    }

    package init(stringLiteral value: String) { self.init(value) }

    package static func == (lhs: SIPHeaderName, rhs: SIPHeaderName) -> Bool { lhs.key == rhs.key }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }
    package var description: String { canonical }

    /// The single-letter form of this name, if it has one.
    package var compactForm: String? { Self.compactForms.first { $0.value.lowercased() == key }?.key }

    package static let via: SIPHeaderName = "Via"
    package static let from: SIPHeaderName = "From"
    package static let to: SIPHeaderName = "To"
    package static let callID: SIPHeaderName = "Call-ID"
    package static let cseq: SIPHeaderName = "CSeq"
    package static let contact: SIPHeaderName = "Contact"
    package static let maxForwards: SIPHeaderName = "Max-Forwards"
    package static let contentLength: SIPHeaderName = "Content-Length"
    package static let contentType: SIPHeaderName = "Content-Type"
    package static let route: SIPHeaderName = "Route"
    package static let recordRoute: SIPHeaderName = "Record-Route"
    package static let expires: SIPHeaderName = "Expires"
    package static let wwwAuthenticate: SIPHeaderName = "WWW-Authenticate"
    package static let proxyAuthenticate: SIPHeaderName = "Proxy-Authenticate"
    package static let authorization: SIPHeaderName = "Authorization"
    package static let proxyAuthorization: SIPHeaderName = "Proxy-Authorization"
    package static let userAgent: SIPHeaderName = "User-Agent"
    package static let allow: SIPHeaderName = "Allow"
    package static let supported: SIPHeaderName = "Supported"
    package static let reason: SIPHeaderName = "Reason"

    /// RFC 3261 §7.3.3 and the compact forms IANA registered since (RFC 3265, 3515, 3841, 3892, 4028, 4474).
    private static let compactForms: [String: String] = [
        "i": "Call-ID", "m": "Contact", "f": "From", "t": "To", "v": "Via", "l": "Content-Length",
        "c": "Content-Type", "k": "Supported", "s": "Subject", "e": "Content-Encoding",
        "o": "Event", "u": "Allow-Events", "r": "Refer-To", "b": "Referred-By",
        "a": "Accept-Contact", "j": "Reject-Contact", "d": "Request-Disposition",
        "x": "Session-Expires", "y": "Identity", "n": "Identity-Info",
    ]

    /// Names whose usual capitalisation is not what a peer may have written.
    private static let knownNames: [String: String] = Dictionary(uniqueKeysWithValues: [
        "Via", "From", "To", "Call-ID", "CSeq", "Contact", "Max-Forwards", "Content-Length", "Content-Type",
        "Route", "Record-Route", "Expires", "WWW-Authenticate", "Proxy-Authenticate", "Authorization",
        "Proxy-Authorization", "User-Agent", "Allow", "Supported", "Require", "Reason", "Subject",
        "Content-Encoding", "Event", "Allow-Events", "Refer-To", "Referred-By", "Accept-Contact",
        "Reject-Contact", "Request-Disposition", "Session-Expires", "Identity", "Identity-Info",
    ].map { ($0.lowercased(), $0) })
}
