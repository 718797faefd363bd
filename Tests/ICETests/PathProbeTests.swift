@testable import ICE
import Testing

@Suite struct PathProbeTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    /// RFC 5769 §2.1's sample request without its SOFTWARE attribute, as libnice's own STUN
    /// tests use it: MESSAGE-INTEGRITY (short-term key) and FINGERPRINT must come out the same.
    @Test func integrityAndFingerprintMatchTheRFC5769SampleRequest() {
        var message = STUNMessage(type: STUNMessage.binding, transactionID: [0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE])
        message.attributes = [
            (STUNMessage.Attribute.priority.rawValue, [0x6E, 0x00, 0x01, 0xFF]),
            (STUNMessage.Attribute.iceControlled.rawValue, [0x93, 0x2F, 0xF9, 0xB1, 0x51, 0x26, 0x3B, 0x36]),
            (STUNMessage.Attribute.username.rawValue, Array("evtj:h6vY".utf8)),
        ]
        let bytes = message.encoded(integrityKey: Array("VOkJxbRl1RmTxUk/WvJxBt".utf8), fingerprint: true, padding: 0x20)
        let expected: [UInt8] = [
            0x00, 0x01, 0x00, 0x44, 0x21, 0x12, 0xA4, 0x42, 0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE,
            0x00, 0x24, 0x00, 0x04, 0x6E, 0x00, 0x01, 0xFF,
            0x80, 0x29, 0x00, 0x08, 0x93, 0x2F, 0xF9, 0xB1, 0x51, 0x26, 0x3B, 0x36,
            0x00, 0x06, 0x00, 0x09, 0x65, 0x76, 0x74, 0x6A, 0x3A, 0x68, 0x36, 0x76, 0x59, 0x20, 0x20, 0x20,
            0x00, 0x08, 0x00, 0x14, 0x62, 0x4E, 0xEB, 0xDC, 0x3C, 0xC9, 0x2D, 0xD8, 0x4B, 0x74, 0xBF, 0x85, 0xD1, 0xC0, 0xF5, 0xDE,
            0x36, 0x87, 0xBD, 0x33,
            0x80, 0x28, 0x00, 0x04, 0xAD, 0x8A, 0x85, 0xFF,
        ]
        #expect(bytes == expected)
    }

    @Test func aProbeIsAnAuthenticatedBindingRequestInTheAgentsRole() throws {
        let remote = ICECredentials(ufrag: "RFRG", password: "remote-password-0123456789")
        let bytes = PathProbe.request(localUfrag: "LFRG", remote: remote, priority: 0x6E00_FFFF, controlling: true, tieBreaker: 0x0102_0304_0506_0708)
        let message = try #require(STUNMessage.decode(bytes))
        #expect(message.type == STUNMessage.binding)
        // RFC 8445 §7.2.2: the remote ufrag first.
        #expect(message.attribute(.username) == Array("RFRG:LFRG".utf8))
        #expect(message.attribute(.priority) == [0x6E, 0x00, 0xFF, 0xFF])
        #expect(message.attribute(.iceControlling) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(message.attribute(.iceControlled) == nil)
        #expect(message.attributes.last?.0 == STUNMessage.Attribute.fingerprint.rawValue)
        #expect(message.attributes.dropLast().last?.0 == STUNMessage.Attribute.messageIntegrity.rawValue)
        // No USE-CANDIDATE (0x0025): a probe must not nominate.
        #expect(!message.attributes.contains { $0.0 == 0x0025 })
        #expect(!bytes.containsSubsequence(Array(remote.password.utf8)))
    }

    @Test func probePriorityIsPeerReflexiveWithTheCandidatesLocalPreference() {
        // A host candidate: type 126, local preference 65535, component 1.
        let host: UInt32 = (126 << 24) | (65535 << 8) | 255
        #expect(PathProbe.priority(localCandidatePriority: host, component: 1) == (110 << 24) | (65535 << 8) | 255)
        #expect(PathProbe.priority(localCandidatePriority: host, component: 2) == (110 << 24) | (65535 << 8) | 254)
    }

    @Test(arguments: [(Duration.milliseconds(500), Duration.seconds(30)), (.seconds(3), .seconds(1)), (.seconds(5), .seconds(5))])
    func timeoutsOutOfRangeAreTypedConfigurationErrors(disconnect: Duration, consent: Duration) {
        let configuration = ICEAgentConfiguration(role: .controlling, disconnectTimeout: disconnect, consentTimeout: consent)
        #expect {
            _ = try ICEAgent(configuration: configuration)
        } throws: { error in
            guard case .configuration(let reason) = error as? ICEError else { return false }
            return reason == .invalidDisconnectTimeout(disconnect) || reason == .invalidConsentTimeout(consent)
        }
    }
}

private extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
