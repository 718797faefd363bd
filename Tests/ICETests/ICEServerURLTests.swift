import ICE
import Testing

@Suite struct ICEServerURLTests {
    @Test func stunURLWithAndWithoutPort() throws {
        let plain = try ICEServer(url: "stun:stun.example.org")
        #expect(plain.kind == .stun)
        #expect(plain.host == "stun.example.org")
        #expect(plain.port == 3478)
        let withPort = try ICEServer(url: "stun:192.0.2.1:19302")
        #expect(withPort.host == "192.0.2.1")
        #expect(withPort.port == 19302)
    }

    @Test func turnTransportsAndDefaultPorts() throws {
        let udp = try ICEServer(url: "turn:turn.example.org", username: "u", credential: "p")
        #expect(udp.kind == .turn && udp.transport == .udp && udp.port == 3478)
        let tcp = try ICEServer(url: "turn:turn.example.org:443?transport=tcp", username: "u", credential: "p")
        #expect(tcp.transport == .tcp && tcp.port == 443)
        let tls = try ICEServer(url: "turns:turn.example.org", username: "u", credential: "p")
        #expect(tls.transport == .tls && tls.port == 5349)
        let tlsExplicit = try ICEServer(url: "TURNS:turn.example.org:443?transport=tcp", username: "u", credential: "p")
        #expect(tlsExplicit.transport == .tls && tlsExplicit.port == 443)
    }

    @Test func bracketedIPv6Host() throws {
        let server = try ICEServer(url: "turn:[2001:db8::1]:3479?transport=udp", username: "u", credential: "p")
        #expect(server.host == "2001:db8::1")
        #expect(server.port == 3479)
        #expect(server.description == "turn:[2001:db8::1]:3479?transport=udp")
    }

    @Test(arguments: [
        ("http://example.org", ICEConfigurationError.unsupportedScheme(url: "http://example.org")),
        ("stun:", .missingHost(url: "stun:")),
        ("stun:host:0", .invalidPort(url: "stun:host:0")),
        ("stun:host:70000", .invalidPort(url: "stun:host:70000")),
        ("stun:host:12ab", .invalidPort(url: "stun:host:12ab")),
        ("stun:host?transport=udp", .unsupportedQuery(url: "stun:host?transport=udp")),
        ("turn:host?transport=sctp", .unsupportedTransport(url: "turn:host?transport=sctp", transport: "sctp")),
        ("turns:host?transport=udp", .unsupportedTransport(url: "turns:host?transport=udp", transport: "udp")),
        ("turn:host?foo=bar", .unsupportedQuery(url: "turn:host?foo=bar")),
        ("turn:[2001:db8::1", .invalidHost(url: "turn:[2001:db8::1")),
        ("turn:a:b:c", .invalidHost(url: "turn:a:b:c")),
        ("stuns:host", .stunsNotSupported(url: "stuns:host")),
        ("turn:host name", .invalidHost(url: "turn:host name")),
    ])
    func badURLsGiveTypedErrors(url: String, expected: ICEConfigurationError) {
        #expect(throws: expected) { try ICEServer(url: url, username: "u", credential: "p") }
    }

    @Test func turnNeedsCredentials() {
        #expect(throws: ICEConfigurationError.missingCredentials(url: "turn:host")) { try ICEServer(url: "turn:host") }
        #expect(throws: ICEConfigurationError.missingCredentials(url: "turn:host")) { try ICEServer(url: "turn:host", username: "u", credential: "") }
    }

    @Test func credentialsNeverAppearInErrorsOrDescriptions() throws {
        let secret = "s3cr3t-Pa55"
        let server = try ICEServer(url: "turn:host", username: "alice", credential: secret)
        #expect(!server.description.contains(secret))
        #expect(!String(describing: server).contains(secret))
        // A user pasting "user:password@host" gets an error that does not repeat the password
        // beyond what they typed in the URL field; credentials given apart are never quoted.
        do {
            _ = try ICEServer(url: "turn:bad host", username: "alice", credential: secret)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains(secret))
        }
        let authError = ICEError.turnAuthenticationFailed(server: server.description)
        #expect(authError.description.contains("TURN authentication"))
        #expect(!authError.description.contains(secret))
    }
}
