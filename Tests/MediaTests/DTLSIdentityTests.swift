import Media
import SDP
import Testing

@Suite struct DTLSIdentityTests {
    @Test func fingerprintIsSHA256OverTheCertificate() throws {
        let identity = try DTLSIdentity.generate()
        #expect(identity.fingerprint.hashFunction.lowercased() == "sha-256")
        // 32 bytes as colon-separated upper-case hex pairs.
        let pairs = identity.fingerprint.value.split(separator: ":")
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func eachIdentityHasItsOwnKey() throws {
        #expect(try DTLSIdentity.generate().fingerprint != DTLSIdentity.generate().fingerprint)
    }
}
