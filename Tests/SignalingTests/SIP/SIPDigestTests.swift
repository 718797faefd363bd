@testable import Signaling
import Testing

/// Digest authentication against the RFCs' own worked examples, then the choices a UAC makes:
/// which challenge to answer, stale nonces, and stopping when the password is wrong.
@Suite struct SIPDigestTests {
    @Test func hashesMatchKnownValues() {
        #expect(SIPDigestAlgorithm.md5.hash("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(SIPDigestAlgorithm.sha256.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SIPDigestAlgorithm.sha512_256.hash("abc") == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
    }

    /// RFC 2617 §3.5's example: MD5, qop=auth.
    @Test func rfc2617Example() throws {
        let challenge = try #require(try SIPDigestChallenge(parsing: #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#, isProxy: false))
        let value = SIPDigestAuthorizer.authorizationValue(challenge: challenge, credentials: SIPCredentials(username: "Mufasa", password: "Circle Of Life"),
                                                           method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b", nonceCount: 1)
        #expect(value.contains(#"response="6629fae49393a05397450978507c4ef1""#), "\(value)")
        #expect(value.contains("nc=00000001") && value.contains("qop=auth,") && value.contains(#"cnonce="0a4f113b""#))
        #expect(value.contains(#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#))
    }

    /// RFC 7616 §3.9.1's example, once with MD5 and once with SHA-256.
    @Test(arguments: [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")])
    func rfc7616Example(_ algorithm: String, _ expected: String) throws {
        let header = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=\(algorithm), "
            + #"nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        let challenge = try #require(try SIPDigestChallenge(parsing: header, isProxy: false))
        #expect(challenge.qopOptions == ["auth", "auth-int"])
        let value = SIPDigestAuthorizer.authorizationValue(challenge: challenge, credentials: SIPCredentials(username: "Mufasa", password: "Circle of Life"),
                                                           method: "GET", uri: "/dir/index.html",
                                                           cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", nonceCount: 1)
        #expect(value.contains("response=\"\(expected)\""), "\(value)")
        #expect(value.contains("algorithm=\(algorithm)"))
    }

    @Test func aChallengeWithoutQopIsAnsweredAsRFC2069() throws {
        let challenge = SIPDigestChallenge(realm: "r", nonce: "n", qopOptions: [])
        let value = SIPDigestAuthorizer.authorizationValue(challenge: challenge, credentials: SIPCredentials(username: "u", password: "p"),
                                                           method: "REGISTER", uri: "sip:example.com", cnonce: "c", nonceCount: 1)
        let md5 = SIPDigestAlgorithm.md5
        let expected = md5.hash("\(md5.hash("u:r:p")):n:\(md5.hash("REGISTER:sip:example.com"))")
        #expect(value.contains("response=\"\(expected)\""))
        #expect(!value.contains("qop=") && !value.contains("nc=") && !value.contains("cnonce="))
    }

    @Test func sessionAlgorithmsHashTheNoncesIntoA1() throws {
        let challenge = SIPDigestChallenge(realm: "r", nonce: "n", algorithmName: "SHA-256-sess")
        let value = SIPDigestAuthorizer.authorizationValue(challenge: challenge, credentials: SIPCredentials(username: "u", password: "p"),
                                                           method: "INVITE", uri: "sip:b@example.com", cnonce: "c", nonceCount: 2)
        let sha = SIPDigestAlgorithm.sha256
        let ha1 = sha.hash("\(sha.hash("u:r:p")):n:c")
        let expected = sha.hash("\(ha1):n:00000002:c:auth:\(sha.hash("INVITE:sip:b@example.com"))")
        #expect(value.contains("response=\"\(expected)\""))
    }

    @Test func theTopmostSupportedChallengeOfEachRealmIsChosen() {
        let sha = SIPDigestChallenge(realm: "a", nonce: "1", algorithmName: "SHA-256")
        let md5 = SIPDigestChallenge(realm: "a", nonce: "2", algorithmName: "MD5")
        let unknown = SIPDigestChallenge(realm: "a", nonce: "3", algorithmName: "SHA3-512")
        let intOnly = SIPDigestChallenge(realm: "a", nonce: "4", qopOptions: ["auth-conf"])
        let other = SIPDigestChallenge(realm: "b", nonce: "5", algorithmName: "md5")
        #expect(SIPDigestChallenge.select([sha, md5]) == [sha])
        #expect(SIPDigestChallenge.select([md5, sha]) == [md5], "the server's order is its preference (RFC 8760 §2.4)")
        #expect(SIPDigestChallenge.select([unknown, intOnly, md5, other]) == [md5, other])
        #expect(SIPDigestChallenge.select([unknown, intOnly]).isEmpty)
    }

    static func challengeResponse(status: Int, _ challenges: [String]) -> SIPMessage {
        let name: SIPHeaderName = status == 407 ? .proxyAuthenticate : .wwwAuthenticate
        let built = SIPMessage.response(status: status, reason: status == 407 ? "Proxy Authentication Required" : "Unauthorized",
                                        headers: [SIPHeader(.via, "SIP/2.0/UDP h;branch=z9hG4bK1"), SIPHeader(.cseq, "1 REGISTER")]
                                            + challenges.map { SIPHeader(name, $0) })
        // Read back from its bytes, so its fields have line numbers as a received one's do.
        return (try? SIPMessage.parse(built.serialized)) ?? built
    }

    @Test func a401IsAnsweredWithAuthorizationAnd407WithProxyAuthorization() throws {
        var authorizer = SIPDigestAuthorizer(credentials: SIPCredentials(username: "alice", password: "wonderland"), makeCNonce: { "cn" })
        let registrar = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="abc", qop="auth", algorithm=SHA-256"#]),
                                              method: "REGISTER", uri: "sip:example.com")
        #expect(registrar.map(\.name) == [.authorization])
        let proxy = try authorizer.answer(Self.challengeResponse(status: 407, [#"Digest realm="proxy.example.com", nonce="def""#]),
                                          method: "INVITE", uri: "sip:bob@example.com")
        #expect(proxy.map(\.name) == [.proxyAuthorization])
        #expect(proxy[0].value.contains("algorithm=MD5"), "no algorithm means MD5")
        #expect(!proxy[0].value.contains("qop="), "no qop offered: RFC 2069")
    }

    @Test func aStaleNonceIsAnsweredAgainAndASecondChallengeIsAWrongPassword() throws {
        var authorizer = SIPDigestAuthorizer(credentials: SIPCredentials(username: "alice", password: "wonderland"), makeCNonce: { "cn" })
        authorizer.beginRequest()
        _ = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="n1", qop="auth""#]),
                                  method: "REGISTER", uri: "sip:example.com")
        let again = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="n2", qop="auth", stale=TRUE"#]),
                                          method: "REGISTER", uri: "sip:example.com")
        #expect(again[0].value.contains(#"nonce="n2""#))
        let rejected = #expect(throws: SIPAuthError.self) {
            try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="n3", qop="auth""#]),
                                  method: "REGISTER", uri: "sip:example.com")
        }
        #expect(rejected == .credentialsRejected(realm: "example.com", status: 401))
        authorizer.beginRequest()
        _ = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="n4", qop="auth""#]),
                                  method: "REGISTER", uri: "sip:example.com")
    }

    @Test func preemptiveCredentialsCountTheNonceUp() throws {
        var authorizer = SIPDigestAuthorizer(credentials: SIPCredentials(username: "alice", password: "wonderland"), makeCNonce: { "cn" })
        #expect(authorizer.preemptive(method: "REGISTER", uri: "sip:example.com").isEmpty)
        _ = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="example.com", nonce="n1", qop="auth""#]),
                                  method: "REGISTER", uri: "sip:example.com")
        let next = authorizer.preemptive(method: "REGISTER", uri: "sip:example.com")
        #expect(next.count == 1 && next[0].value.contains("nc=00000002"))
    }

    @Test func unanswerableChallengesAreTypedErrors() throws {
        var authorizer = SIPDigestAuthorizer(credentials: SIPCredentials(username: "alice", password: "wonderland"))
        #expect(throws: SIPAuthError.noChallenge(status: 401)) {
            try authorizer.answer(Self.challengeResponse(status: 401, []), method: "REGISTER", uri: "sip:example.com")
        }
        #expect(throws: SIPAuthError.noChallenge(status: 401)) {
            try authorizer.answer(Self.challengeResponse(status: 401, [#"Basic realm="x""#]), method: "REGISTER", uri: "sip:example.com")
        }
        #expect(throws: SIPAuthError.noSupportedChallenge(algorithms: ["SHA3-512"])) {
            try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="x", nonce="y", algorithm=SHA3-512"#]), method: "REGISTER", uri: "sip:example.com")
        }
        for malformed in [#"Digest realm="x""#, #"Digest realm="x", nonce="y", nonce="z""#, #"Digest realm="x, nonce=y"#, "Digest realm"] {
            let error = #expect(throws: SIPAuthError.self, "\(malformed)") {
                try authorizer.answer(Self.challengeResponse(status: 401, [malformed]), method: "REGISTER", uri: "sip:example.com")
            }
            guard case .malformedChallenge(let parse)? = error else {
                Issue.record("\(malformed): \(String(describing: error))")
                continue
            }
            #expect(parse.line > 0)
        }
    }

    @Test func thePasswordIsNeverWrittenOut() throws {
        let password = "s3cr3t-Pa55"
        let credentials = SIPCredentials(username: "alice", password: password)
        var authorizer = SIPDigestAuthorizer(credentials: credentials)
        var dumped = ""
        dump(authorizer, to: &dumped)
        for text in [String(describing: credentials), String(reflecting: credentials), "\(credentials)", dumped, String(describing: authorizer)] {
            #expect(!text.contains(password), "\(text)")
        }
        let headers = try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="x", nonce="y", qop="auth""#]), method: "REGISTER", uri: "sip:x")
        #expect(!headers[0].value.contains(password))
        let error = #expect(throws: SIPAuthError.self) {
            try authorizer.answer(Self.challengeResponse(status: 401, [#"Digest realm="x", nonce="z", qop="auth""#]), method: "REGISTER", uri: "sip:x")
        }
        #expect(!(error?.description.contains(password) ?? true))
    }
}
