/// Why a challenge could not be answered. Never carries a password, a nonce or a response.
package enum SIPAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server challenged again, not as stale, after we answered its realm: the user name
    /// or password is wrong (RFC 3261 §22.2 has the UAC stop rather than loop).
    case credentialsRejected(realm: String, status: Int)
    /// Every challenge names an algorithm or qop we do not support.
    case noSupportedChallenge(algorithms: [String])
    /// A 401 without WWW-Authenticate, a 407 without Proxy-Authenticate.
    case noChallenge(status: Int)
    case malformedChallenge(SIPParseError)

    package var description: String {
        switch self {
        case .credentialsRejected(let realm, let status):
            "the server refused our credentials for realm \(SIPValueScanner.quote(String(realm.prefix(64)))) (\(status) again); check the user name and password"
        case .noSupportedChallenge(let algorithms):
            "the server offers only digest algorithms we do not support (\(algorithms.map { String($0.prefix(24)) }.joined(separator: ", "))); "
                + "supported: \(SIPDigestAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")) with qop auth or auth-int"
        case .noChallenge(let status): "a \(status) response without a Digest challenge"
        case .malformedChallenge(let error): "a malformed authentication challenge: \(error)"
        }
    }
}
