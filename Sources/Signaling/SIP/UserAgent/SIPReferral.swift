/// Blind transfer's messages (RFC 3515): what a REFER asks for, and the `message/sipfrag`
/// NOTIFYs that report how the referred INVITE goes (docs/sip.md, "Transfer"). No I/O: the
/// call's signalling sends and receives them in its dialog.
package enum SIPReferral {
    package static let sipfragType = "message/sipfrag;version=2.0"
    /// RFC 4488: a REFER without its implicit subscription, and the option tag that says we know it.
    package static let referSub: SIPHeaderName = "Refer-Sub"
    package static let noReferSubOption = "norefersub"

    /// What a peer's REFER asks of us: an INVITE to `target`, on behalf of `referredBy`.
    package struct Request: Sendable, Equatable {
        package let target: String
        package let referredBy: String?
        /// False when the REFER said `Refer-Sub: false`: no NOTIFY is wanted (RFC 4488).
        package let subscribes: Bool
        /// Attended transfer: the dialog the target has with the referrer, which our INVITE
        /// replaces (RFC 3891: the Refer-To's embedded `Replaces`).
        package let replaces: SIPReplaces?

        package init(target: String, referredBy: String?, subscribes: Bool = true, replaces: SIPReplaces? = nil) {
            self.target = target
            self.referredBy = referredBy
            self.subscribes = subscribes
            self.replaces = replaces
        }
    }

    /// A REFER we cannot honour: the final response that says why.
    package struct Refusal: Error, Sendable, Equatable {
        package let status: Int
        package let phrase: String
    }

    /// Reads a REFER: exactly one Refer-To (§2.4.1), a `sip:` or `sips:` URI with a user, no
    /// method other than INVITE, and no embedded header but a `Replaces` (attended transfer, RFC
    /// 3891), which the INVITE that follows carries.
    package static func request(of refer: SIPMessage) throws(Refusal) -> Request {
        let fields = refer.values("Refer-To")
        guard fields.count == 1 else { throw Refusal(status: 400, phrase: "Bad Request (one Refer-To needed)") }
        guard let address = try? SIPNameAddress(parsing: fields[0].value) else { throw Refusal(status: 400, phrase: "Bad Request (Refer-To unreadable)") }
        let scheme = address.uri.prefix { $0 != ":" }.lowercased()
        guard scheme == "sip" || scheme == "sips" else { throw Refusal(status: 416, phrase: "Unsupported URI Scheme") }
        guard var uri = try? SIPURI(parsing: address.uri), uri.user?.isEmpty == false else {
            throw Refusal(status: 400, phrase: "Bad Request (Refer-To names no user)")
        }
        if let method = uri.parameters["method"], method.uppercased() != "INVITE" {
            throw Refusal(status: 403, phrase: "Forbidden (only INVITE is referred)")
        }
        let replaces = try uri.headers.map(Self.replaces(embeddedIn:))
        uri.headers = nil
        uri.parameters.remove("method")
        let referredBy = refer.header("Referred-By").map(\.value)
        guard let subscribes = subscription(asked: refer) else { throw Refusal(status: 400, phrase: "Bad Request (Refer-Sub is neither true nor false)") }
        return Request(target: uri.serialized, referredBy: referredBy, subscribes: subscribes, replaces: replaces)
    }

    /// The URI headers of a Refer-To (`name=value&…`, escaped): one `Replaces` and nothing else.
    private static func replaces(embeddedIn headers: String) throws(Refusal) -> SIPReplaces {
        let fields = headers.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        guard fields.count == 1, let field = fields.first, field.count == 2, SIPURI.unescape(field[0]).lowercased() == "replaces" else {
            throw Refusal(status: 403, phrase: "Forbidden (a Refer-To may embed only Replaces)")
        }
        guard let replaces = SIPReplaces(parsing: SIPURI.unescape(field[1])) else {
            throw Refusal(status: 400, phrase: "Bad Request (the embedded Replaces is unreadable)")
        }
        return replaces
    }

    /// A message's `Refer-Sub` (RFC 4488 §3: `true` or `false`, maybe with parameters): true
    /// without one, nil for one that is neither or repeated.
    package static func subscription(asked message: SIPMessage) -> Bool? {
        let fields = message.headers(referSub)
        guard let field = fields.first else { return true }
        let value = String(field.value.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }).lowercased()
        guard fields.count == 1, value == "true" || value == "false" else { return nil }
        return value == "true"
    }

    /// The 2xx to our REFER declined the subscription (`Refer-Sub: false`): no NOTIFY will come.
    package static func declinesSubscription(_ response: SIPMessage) -> Bool {
        subscription(asked: response) == false
    }

    /// The status line a sipfrag body starts with (RFC 3420): its code and reason phrase; nil
    /// for a body that does not start with `SIP/2.0 DDD`.
    package static func status(ofSipfrag body: [UInt8]) -> (status: Int, phrase: String)? {
        let firstLine = body.prefix { $0 != 0x0D && $0 != 0x0A }.prefix(256)
        let text = String(decoding: firstLine, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "SIP/2.0", parts[1].count == 3, let status = Int(parts[1]), (100...699).contains(status) else { return nil }
        return (status, parts.count > 2 ? String(parts[2]) : "")
    }

    /// A sipfrag body reporting `status`.
    package static func sipfrag(status: Int, phrase: String) -> [UInt8] {
        Array("SIP/2.0 \(status) \(phrase)\r\n".utf8)
    }

    /// The fields of a NOTIFY for the REFER whose CSeq was `referSequence`: the subscription
    /// is active until the INVITE's final response, then terminated (RFC 6665 §4.2.2).
    package static func notifyFields(referSequence: UInt32, final: Bool) -> [SIPHeader] {
        [
            SIPHeader("Event", "refer;id=\(referSequence)"),
            SIPHeader("Subscription-State", final ? "terminated;reason=noresource" : "active;expires=60"),
            SIPHeader(.contentType, sipfragType),
        ]
    }

    /// A NOTIFY that ends the subscription (the referred INVITE's outcome is final).
    package static func endsSubscription(_ notify: SIPMessage) -> Bool {
        notify.header("Subscription-State")?.value.lowercased().hasPrefix("terminated") == true
    }
}
