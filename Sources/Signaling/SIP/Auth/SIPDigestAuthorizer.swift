/// Answers digest challenges for one account (RFC 3261 §22, RFC 7616, RFC 8760) and keeps what
/// the next request needs: each nonce's count (`nc`), and which realms the request in flight
/// already answered, so that a second non-stale challenge for a realm ends in
/// `SIPAuthError.credentialsRejected` instead of a loop.
package struct SIPDigestAuthorizer: Sendable {
    package let credentials: SIPCredentials
    private let makeCNonce: @Sendable () -> String
    /// The challenges last answered, reused (with the next `nc`) on later requests to the same
    /// server, as RFC 7616 §3.4 lets a client do until the server says the nonce is stale.
    private var current: [SIPDigestChallenge] = []
    private var nonceCounts: [String: UInt32] = [:]
    private var answeredRealms: Set<String> = []

    package init(credentials: SIPCredentials, makeCNonce: @escaping @Sendable () -> String = SIPDigestAuthorizer.randomCNonce) {
        self.credentials = credentials
        self.makeCNonce = makeCNonce
    }

    package static func randomCNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }

    /// A new request (not a retry of a challenged one) is about to go out: realms answered so far
    /// may be answered again.
    package mutating func beginRequest() { answeredRealms = [] }

    /// The header fields that answer a 401 or 407 to `method` `uri`. Throws when the response
    /// says the credentials were wrong, or offers nothing we can answer.
    package mutating func answer(_ response: SIPMessage, method: String, uri: String, body: [UInt8] = []) throws(SIPAuthError) -> [SIPHeader] {
        let status = response.status ?? 0
        let offered: [SIPDigestChallenge]
        do {
            offered = try SIPDigestChallenge.all(in: response)
        } catch {
            throw .malformedChallenge(error)
        }
        guard !offered.isEmpty else { throw .noChallenge(status: status) }
        let chosen = SIPDigestChallenge.select(offered)
        guard !chosen.isEmpty else { throw .noSupportedChallenge(algorithms: offered.map(\.algorithmName)) }
        for challenge in chosen where answeredRealms.contains(challenge.realm) && !challenge.stale {
            throw .credentialsRejected(realm: challenge.realm, status: status)
        }
        current.removeAll { old in chosen.contains { $0.realm == old.realm && $0.isProxy == old.isProxy } }
        current += chosen
        answeredRealms.formUnion(chosen.map(\.realm))
        return chosen.map { authorization(for: $0, method: method, uri: uri, body: body) }
    }

    /// Credentials for a new request from the challenges already answered, so a refresh does not
    /// wait for a 401 first. Empty before any challenge.
    package mutating func preemptive(method: String, uri: String, body: [UInt8] = []) -> [SIPHeader] {
        current.map { authorization(for: $0, method: method, uri: uri, body: body) }
    }

    private mutating func authorization(for challenge: SIPDigestChallenge, method: String, uri: String, body: [UInt8]) -> SIPHeader {
        let count = (nonceCounts[challenge.nonce] ?? 0) + 1
        nonceCounts[challenge.nonce] = count
        let value = Self.authorizationValue(challenge: challenge, credentials: credentials, method: method, uri: uri, body: body,
                                            cnonce: makeCNonce(), nonceCount: count)
        return SIPHeader(challenge.isProxy ? .proxyAuthorization : .authorization, value)
    }

    /// The Authorization value (RFC 7616 §3.4): `response` is
    /// H(H(A1):nonce:nc:cnonce:qop:H(A2)) with qop, H(H(A1):nonce:H(A2)) without (RFC 2069).
    package static func authorizationValue(challenge: SIPDigestChallenge, credentials: SIPCredentials, method: String, uri: String,
                                           body: [UInt8] = [], cnonce: String, nonceCount: UInt32) -> String {
        let algorithm = challenge.algorithm ?? .md5
        var ha1 = algorithm.hash("\(credentials.username):\(challenge.realm):\(credentials.password)")
        let qop: String? = challenge.qopOptions.isEmpty ? nil : challenge.qopOptions.contains("auth") ? "auth" : "auth-int"
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(challenge.nonce):\(cnonce)") }
        let a2 = qop == "auth-int" ? "\(method):\(uri):\(algorithm.hash(String(decoding: body, as: UTF8.self)))" : "\(method):\(uri)"
        let ha2 = algorithm.hash(a2)
        let nc = String(repeating: "0", count: 8 - String(nonceCount, radix: 16).count) + String(nonceCount, radix: 16)
        let response = if let qop {
            algorithm.hash("\(ha1):\(challenge.nonce):\(nc):\(cnonce):\(qop):\(ha2)")
        } else {
            algorithm.hash("\(ha1):\(challenge.nonce):\(ha2)")
        }
        var fields = [
            "username=\(SIPValueScanner.quote(credentials.username))",
            "realm=\(SIPValueScanner.quote(challenge.realm))",
            "nonce=\(SIPValueScanner.quote(challenge.nonce))",
            "uri=\(SIPValueScanner.quote(uri))",
            "response=\(SIPValueScanner.quote(response))",
            "algorithm=\(challenge.algorithmName)",
        ]
        if let qop {
            fields += ["cnonce=\(SIPValueScanner.quote(cnonce))", "qop=\(qop)", "nc=\(nc)"]
        } else if algorithm.isSession {
            fields.append("cnonce=\(SIPValueScanner.quote(cnonce))")
        }
        if let opaque = challenge.opaque { fields.append("opaque=\(SIPValueScanner.quote(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }
}
