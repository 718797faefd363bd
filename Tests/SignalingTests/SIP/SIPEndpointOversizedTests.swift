@testable import Signaling
import Testing

/// RFC 3261 §18.1.1's 1300 bytes: the first request above them over UDP is reported with its
/// size, later ones and smaller ones not, and nothing over TCP (docs/sip.md, "Not yet").
extension SIPEndpointTests {
    static func options(body: Int) throws -> SIPMessage {
        let text = "OPTIONS sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKbig\r\nMax-Forwards: 70\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:127.0.0.1>\r\nCall-ID: big-1\r\nCSeq: 1 OPTIONS\r\n"
            + "Content-Type: text/plain\r\nContent-Length: \(body)\r\n\r\n" + String(repeating: "x", count: body)
        return try SIPMessage.parse(Array(text.utf8))
    }

    @Test func theFirstRequestOverUDPAbove1300BytesIsReportedOnce() async throws {
        let udp = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:9"))
        #expect(await udp.firstOversized(try Self.options(body: 900)) == nil)
        let large = try Self.options(body: 1300)
        #expect(await udp.firstOversized(large) == large.serialized.count)
        #expect(await udp.firstOversized(large) == nil)
        let tcp = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:9;transport=tcp"))
        #expect(await tcp.firstOversized(large) == nil)
        await udp.close()
        await tcp.close()
    }
}
