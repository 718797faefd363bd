/// Who a SIP user agent is: its address of record (`sip:user@domain`) and the credentials it
/// answers digest challenges with. The password stays inside `SIPCredentials`, which never
/// shows it.
package struct SIPAccount: Sendable, CustomStringConvertible {
    package var user: String
    package var domain: String
    package var credentials: SIPCredentials
    package var displayName: String?

    /// `authUser` is the digest user name when it differs from the address's user.
    package init(user: String, domain: String, password: String, authUser: String? = nil, displayName: String? = nil) {
        self.user = user
        self.domain = domain
        credentials = SIPCredentials(username: authUser ?? user, password: password)
        self.displayName = displayName
    }

    /// `sip:user@domain`.
    package var addressOfRecord: String { "sip:\(user)@\(domain)" }

    package var description: String { addressOfRecord }
}
