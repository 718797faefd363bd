@testable import Signaling
import Testing

/// The server URLs a user gives, each to its transport and default port (docs/sip.md, "URLs").
@Suite struct SIPServerAddressTests {
    @Test(arguments: [
        ("sip:pbx.example.test", SIPTransport.udp, "pbx.example.test", 5060),
        ("sip:pbx.example.test;transport=tcp", .tcp, "pbx.example.test", 5060),
        ("sip:pbx.example.test:5080;transport=TCP", .tcp, "pbx.example.test", 5080),
        ("sip:192.0.2.7;transport=tls", .tls, "192.0.2.7", 5061),
        ("sips:pbx.example.test", .tls, "pbx.example.test", 5061),
        ("sips:pbx.example.test;transport=tcp", .tls, "pbx.example.test", 5061),
        ("sip:[2001:db8::1]:5070", .udp, "2001:db8::1", 5070),
        ("ws://pbx.example.test/ws", .ws, "pbx.example.test", 80),
        ("wss://pbx.example.test:7443", .wss, "pbx.example.test", 7443),
        ("sip:pbx.example.test;transport=ws", .ws, "pbx.example.test", 80),
    ])
    func eachURLNamesItsTransportAndPort(_ text: String, _ transport: SIPTransport, _ host: String, _ port: Int) throws {
        let address = try SIPServerAddress(parsing: text)
        #expect(address.transport == transport)
        #expect(address.host == host)
        #expect(address.port == port)
    }

    @Test(arguments: [
        "http://pbx.example.test",
        "sip:pbx.example.test;transport=sctp",
        "sips:pbx.example.test;transport=udp",
        "sip:",
    ])
    func otherURLsAreRefusedWithAReason(_ text: String) {
        #expect(throws: SIPTransportError.self) { try SIPServerAddress(parsing: text) }
    }

    @Test func aSIPURIWrittenAsAWebURLIsRefusedWithTheURIMeant() throws {
        let error = try #require(throws: SIPTransportError.self) { try SIPServerAddress(parsing: "sip://pbx.example.test:5080;transport=tcp") }
        #expect(error.description.contains("write sip:pbx.example.test:5080;transport=tcp"), "\(error)")
        let secure = try #require(throws: SIPTransportError.self) { try SIPServerAddress(parsing: "sips://ann:hunter2@pbx.example.test") }
        #expect(secure.description.contains("write sips:<redacted>@pbx.example.test"), "\(secure)")
        #expect(!secure.description.contains("hunter2"))
    }

    @Test func aPasswordInTheURLIsRefusedWithoutBeingQuoted() throws {
        let error = try #require(throws: SIPTransportError.self) { try SIPServerAddress(parsing: "sip:ann:hunter2@pbx.example.test") }
        #expect(!error.description.contains("hunter2"))
        let webError = try #require(throws: SIPTransportError.self) { try SIPServerAddress(parsing: "wss://ann:hunter2@pbx.example.test") }
        #expect(!webError.description.contains("hunter2"))
    }
}
