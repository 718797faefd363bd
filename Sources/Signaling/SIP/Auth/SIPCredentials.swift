/// A SIP account's user name and password for digest authentication. The password is never
/// written by `description`, `debugDescription` or a mirror (`dump`, string interpolation of
/// a containing value), only into the hashes of `SIPDigestAuthorizer`.
package struct SIPCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let username: String
    let password: String

    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    package var description: String { "SIPCredentials(username: \(username), password: <redacted>)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "<redacted>"]) }
}
