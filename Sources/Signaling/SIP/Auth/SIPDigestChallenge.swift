/// One `Digest` challenge from a 401's WWW-Authenticate or a 407's Proxy-Authenticate
/// (RFC 3261 §22.4, RFC 7616 §3.3, RFC 8760).
package struct SIPDigestChallenge: Sendable, Equatable {
    package var realm: String
    package var nonce: String
    package var opaque: String?
    /// As written; `algorithm` is nil when we do not support it. Absent means MD5.
    package var algorithmName: String
    package var algorithm: SIPDigestAlgorithm? { SIPDigestAlgorithm(named: algorithmName) }
    /// The `qop` options offered (`auth`, `auth-int`), empty for an RFC 2069 challenge.
    package var qopOptions: [String]
    /// The previous nonce was right but has expired: answer again with the same credentials.
    package var stale: Bool
    /// From Proxy-Authenticate: answered with Proxy-Authorization.
    package var isProxy: Bool

    package init(realm: String, nonce: String, opaque: String? = nil, algorithmName: String = "MD5", qopOptions: [String] = ["auth"],
                 stale: Bool = false, isProxy: Bool = false) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.algorithmName = algorithmName
        self.qopOptions = qopOptions
        self.stale = stale
        self.isProxy = isProxy
    }

    /// Reads `Digest name=value, name="value", …`. A challenge of another scheme (Basic,
    /// Bearer) returns nil; a Digest challenge without realm or nonce throws.
    package init?(parsing value: String, line: Int = 0, isProxy: Bool) throws(SIPParseError) {
        let field = isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"
        var scanner = SIPValueScanner(value, line: line, field: field)
        scanner.skipWhitespace()
        guard let scheme = scanner.token() else { throw scanner.error("no authentication scheme") }
        guard scheme.lowercased() == "digest" else { return nil }
        var parameters: [String: String] = [:]
        repeat {
            scanner.skipWhitespace()
            guard let name = scanner.token() else { throw scanner.error("an auth-param without a name") }
            try scanner.expect(0x3D, "= after an auth-param name")
            scanner.skipWhitespace()
            let parameter: String
            if scanner.peek == 0x22 {
                parameter = try scanner.quotedString()
            } else if let token = scanner.token() {
                parameter = token
            } else {
                throw scanner.error("the auth-param \(name.prefix(32)) has no value")
            }
            guard parameters.updateValue(parameter, forKey: name.lowercased()) == nil else {
                throw scanner.error("the auth-param \(name.prefix(32)) is given twice")
            }
        } while scanner.consume(0x2C)
        try scanner.expectEnd()
        guard let realm = parameters["realm"], let nonce = parameters["nonce"], !nonce.isEmpty else {
            throw scanner.error("a Digest challenge needs a realm and a nonce")
        }
        self.realm = realm
        self.nonce = nonce
        opaque = parameters["opaque"]
        algorithmName = parameters["algorithm"] ?? "MD5"
        qopOptions = parameters["qop"].map { $0.split(separator: ",").map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() } } ?? []
        stale = parameters["stale"]?.lowercased() == "true"
        self.isProxy = isProxy
    }

    /// Every Digest challenge of a 401 or 407, top first.
    package static func all(in response: SIPMessage) throws(SIPParseError) -> [SIPDigestChallenge] {
        let isProxy = response.status == 407
        var challenges: [SIPDigestChallenge] = []
        for header in response.headers(isProxy ? .proxyAuthenticate : .wwwAuthenticate) {
            if let challenge = try SIPDigestChallenge(parsing: header.value, line: header.line, isProxy: isProxy) {
                challenges.append(challenge)
            }
        }
        return challenges
    }

    /// The challenge to answer for each realm: the topmost one whose algorithm and qop we
    /// support, as RFC 8760 §2.4 has a UAC do, so the server's order states its preference.
    package static func select(_ challenges: [SIPDigestChallenge]) -> [SIPDigestChallenge] {
        var chosen: [SIPDigestChallenge] = []
        for challenge in challenges where challenge.isSupported && !chosen.contains(where: { $0.realm == challenge.realm }) {
            chosen.append(challenge)
        }
        return chosen
    }

    /// The algorithm is one we have and, when qop is offered, `auth` or `auth-int` is among it.
    package var isSupported: Bool {
        algorithm != nil && (qopOptions.isEmpty || qopOptions.contains("auth") || qopOptions.contains("auth-int"))
    }
}
