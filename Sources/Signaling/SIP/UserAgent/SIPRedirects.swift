/// Following 3xx responses to an INVITE (RFC 3261 §8.1.3.4): each redirect's Contacts in order of
/// their `q` (highest first, RFC 3261 §20.10), the first `sip:` or `sips:` one not tried yet; at
/// most `limit` redirects, and never a target already tried, so two phones forwarding to each
/// other end instead of ringing each other for ever (docs/sip.md, "Redirects").
package struct SIPRedirects: Sendable, Equatable {
    package static let limit = 5

    /// Each target tried, the first INVITE's first, as `user@host:port` (case-folded host).
    package private(set) var tried: [String]
    package private(set) var followed = 0

    package init(original: String) {
        tried = [Self.identity(of: original)]
    }

    /// The target the next INVITE goes to, or why there is none.
    package mutating func next(from response: SIPMessage) throws(SIPRedirectError) -> String {
        guard followed < Self.limit else { throw .tooMany(limit: Self.limit) }
        let contacts = ((try? response.contacts()) ?? nil) ?? []
        let ordered = contacts.enumerated().sorted { lhs, rhs in
            let (left, right) = (Self.quality(lhs.element), Self.quality(rhs.element))
            return left != right ? left > right : lhs.offset < rhs.offset
        }.map(\.element)
        let usable = ordered.filter { contact in
            guard let uri = try? contact.sipURI() else { return false }
            return uri.user?.isEmpty == false
        }
        guard !usable.isEmpty else { throw .noTarget }
        guard let target = usable.first(where: { !tried.contains(Self.identity(of: $0.uri)) }) else {
            throw .loop(target: usable[0].uri)
        }
        followed += 1
        tried.append(Self.identity(of: target.uri))
        return target.uri
    }

    private static func quality(_ contact: SIPNameAddress) -> Double {
        contact.parameters["q"].flatMap(Double.init).map { min(max($0, 0), 1) } ?? 1
    }

    /// What makes two targets the same phone: user, host without case, port.
    static func identity(of uri: String) -> String {
        guard let parsed = try? SIPURI(parsing: uri) else { return uri.lowercased() }
        return "\(parsed.user ?? "")@\(parsed.host.lowercased()):\(parsed.port ?? (parsed.scheme == "sips" ? 5061 : 5060))"
    }
}

/// Why a 3xx is not followed: it ends the call as the 3xx.
package enum SIPRedirectError: Error, Sendable, Equatable, CustomStringConvertible {
    case noTarget
    case tooMany(limit: Int)
    case loop(target: String)

    package var description: String {
        switch self {
        case .noTarget: "the redirect names no sip: or sips: Contact with a user"
        case .tooMany(let limit): "more than \(limit) redirects"
        case .loop(let target): "a redirect loop: \(target) was tried already"
        }
    }
}
