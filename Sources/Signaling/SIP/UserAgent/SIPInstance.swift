/// One user agent instance as RFC 5626 names it (docs/sip.md, "Endpoint and registration"): the
/// `+sip.instance` URN and the `reg-id` of its flow, which a REGISTER's Contact carries so that
/// the registrar replaces the binding a lost flow left when a new flow registers, instead of
/// keeping both. A phone makes one when it opens and keeps it for every flow it recovers.
package struct SIPInstance: Sendable, Equatable {
    /// `urn:uuid:` and a random (version 4) UUID.
    package let urn: String
    /// We keep one flow at a time, to one server: every flow of ours is flow 1 (RFC 5626).
    package let regID: Int

    package init(urn: String, regID: Int = 1) {
        self.urn = urn
        self.regID = regID
    }

    /// A new instance: random per phone, not derived from the account and the machine, since
    /// two processes registering one account on one machine are two instances (each must keep
    /// its own binding: a forking test registers bob twice).
    package static func random() -> SIPInstance {
        SIPInstance(urn: "urn:uuid:" + RandomIdentifier.uuid())
    }

    /// The Contact parameters of a REGISTER (RFC 5626), the URN quoted in angle brackets.
    package var contactParameters: String {
        ";+sip.instance=\"<\(urn)>\";reg-id=\(regID)"
    }

    /// What a REGISTER with an instance says it supports: outbound, and Path (RFC 3327), which
    /// RFC 5626 asks a UA registering with it to support.
    package static let supported = "outbound, path"
}
