import ICE
import Testing

@Suite struct ICECredentialsTests {
    // RFC 8839 §5.4: ufrag at least 4 and password at least 22 ice-chars.
    @Test func credentialsHaveTheLengthsAndAlphabetTheRFCRequires() {
        let iceChars = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let credentials = ICECredentials.random()
        #expect(credentials.ufrag.count == 16)
        #expect(credentials.password.count == 32)
        #expect(credentials.ufrag.allSatisfy(iceChars.contains))
        #expect(credentials.password.allSatisfy(iceChars.contains))
    }

    @Test func everyCallGetsFreshCredentials() {
        let first = ICECredentials.random(), second = ICECredentials.random()
        #expect(first.ufrag != second.ufrag)
        #expect(first.password != second.password)
    }
}
