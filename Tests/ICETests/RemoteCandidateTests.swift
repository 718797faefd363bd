@testable import ICE
import Testing

@Suite struct RemoteCandidateTests {
    @Test func acceptsBrowserCandidatesWithOrWithoutThePrefix() throws {
        let line = "candidate:842163049 1 udp 1677729535 203.0.113.5 40123 typ srflx raddr 0.0.0.0 rport 0 generation 0 ufrag abcd network-cost 999"
        let candidate = try RemoteCandidate(line)
        #expect(candidate.component == 1)
        #expect(candidate.address == "203.0.113.5")
        #expect(try RemoteCandidate("a=" + line + "\r\n").line == line)
    }

    @Test func multicastDNSNamesAreRecognisedAndReplaced() throws {
        let candidate = try RemoteCandidate("candidate:1 1 udp 2113937151 6c7c4b8e-2a4a-4b5e-8d84-5f0b5e6f2a11.local 54321 typ host")
        #expect(candidate.isMulticastDNS)
        let resolved = candidate.replacingAddress(with: "192.168.1.20")
        #expect(resolved.line == "candidate:1 1 udp 2113937151 192.168.1.20 54321 typ host")
        #expect(!resolved.isMulticastDNS)
    }

    @Test(arguments: [
        "",
        "candidate:",
        "candidate:1 1 udp 1 1.2.3.4 5 typ",
        "candidate:1 0 udp 1 1.2.3.4 5 typ host",
        "candidate:1 1 sctp 1 1.2.3.4 5 typ host",
        "candidate:1 1 udp x 1.2.3.4 5 typ host",
        "candidate:1 1 udp 1 1.2.3.4 70000 typ host",
        "candidate:1 1 udp 1 1.2.3.4 5 type host",
        "candidate:1 1 udp 1 1.2.3.4 5 typ bogus",
        "candidate:1 1 udp 1 1.2.3.4;rm 5 typ host",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111",
    ])
    func malformedCandidatesGiveTypedErrors(line: String) {
        #expect(throws: ICEError.self) { try RemoteCandidate(line) }
    }

    @Test func stunMessagesRoundTripWithIntegrity() throws {
        var request = STUNMessage.request(STUNMessage.allocate)
        request.attributes = [(STUNMessage.Attribute.username.rawValue, Array("alice".utf8))]
        let bytes = request.encoded(integrityKey: Digest.md5(Array("alice:realm:pw".utf8)))
        let decoded = try #require(STUNMessage.decode(bytes))
        #expect(decoded.type == STUNMessage.allocate)
        #expect(decoded.transactionID == request.transactionID)
        #expect(decoded.attribute(.username) == Array("alice".utf8))
        #expect(decoded.attribute(.messageIntegrity)?.count == 20)
        #expect(STUNMessage.decode(Array(bytes.prefix(24))) == nil)
    }
}
