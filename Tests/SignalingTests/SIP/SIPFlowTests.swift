import Foundation
@testable import Signaling
import TestSupport
import Testing

/// SIP flows over real loopback sockets, serviced by the one signalling thread: what is sent
/// arrives byte for byte, what arrives is parsed and delivered, and each failure is typed.
@Suite(.leakChecked) struct SIPFlowTests {
    static let options = "OPTIONS sip:registrar.example.test SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bKflow1\r\nMax-Forwards: 70\r\nFrom: <sip:ann@example.test>;tag=a1\r\nTo: <sip:registrar.example.test>\r\nCall-ID: flow-test-1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
    static let ok = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bKflow1\r\nFrom: <sip:ann@example.test>;tag=a1\r\nTo: <sip:registrar.example.test>;tag=r1\r\nCall-ID: flow-test-1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"

    private func opened(_ events: EventRecorder<SIPFlowEvent>) async throws -> (String?, Int?) {
        let event = try await events.next("the flow to open", within: 5) { if case .opened = $0 { true } else { false } }
        guard case .opened(let address, let port) = event else { throw WaitTimedOut(what: "open", seconds: 5, seen: "\(event)") }
        return (address, port)
    }

    private func message(_ events: EventRecorder<SIPFlowEvent>) async throws -> SIPMessage {
        let event = try await events.next("a message", within: 5) { if case .message = $0 { true } else { false } }
        return try #require(matching(event) { if case .message(let message) = $0 { message } else { nil } })
    }

    private func closure(_ events: EventRecorder<SIPFlowEvent>, within seconds: Double = 5) async throws -> SIPTransportError? {
        let event = try await events.next("the close", within: seconds) { if case .closed = $0 { true } else { false } }
        guard case .closed(let error) = event else { throw WaitTimedOut(what: "close", seconds: seconds, seen: "\(event)") }
        return error
    }

    @Test func aUDPFlowSendsDatagramsAndDeliversTheParsedAnswer() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port)"))
        let events = EventRecorder(flow.events)
        let (address, port) = try await opened(events)
        #expect(address == "127.0.0.1")
        #expect((port ?? 0) > 0)
        try flow.send(try SIPMessage.parse(Array(Self.options.utf8)))
        #expect(try peer.receive(within: 5) == Self.options)
        try peer.send("this is not SIP")
        let malformed = try await events.next("the garbage refused", within: 5) { if case .malformed = $0 { true } else { false } }
        let kind: SIPParseError.Kind? = matching(malformed) { if case .malformed(let error) = $0 { error.kind } else { nil } }
        #expect(kind != nil)
        try peer.send(Self.ok)
        #expect(try await message(events).status == 200)
        flow.close()
        #expect(try await closure(events) == nil)
    }

    @Test func aUDPFlowClosedWhileItsServerIsStillResolvingNeverOpens() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:localhost:\(peer.port)"))
        flow.close()
        let events = EventRecorder(flow.events)
        // Closed before or after the socket opened (the name may resolve first): either way
        // the flow ends, and the leak check sees no socket left behind.
        #expect(try await closure(events) == nil)
    }

    @Test func aUDPFlowToAPortNobodyListensOnEndsWithATypedError() async throws {
        let port = try unusedLoopbackPort(SOCK_DGRAM)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(port);transport=udp"))
        let events = EventRecorder(flow.events)
        _ = try await opened(events)
        try flow.send(try SIPMessage.parse(Array(Self.options.utf8)))
        let error = try await closure(events)
        #expect(error == .connectFailed("nothing listens there (ICMP port unreachable)"))
    }

    @Test func aTCPFlowCutsMessagesFromTheStreamAndAnswersKeepAlives() async throws {
        let peer = try LoopbackSIPPeer(datagram: false)
        var options = SIPFlowOptions()
        options.keepAliveInterval = .milliseconds(200)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port);transport=tcp"), options: options)
        let events = EventRecorder(flow.events)
        try peer.accept(within: 5)
        _ = try await opened(events)
        try flow.send(try SIPMessage.parse(Array(Self.options.utf8)))
        #expect(try peer.receive(within: 5).hasPrefix("OPTIONS sip:registrar.example.test SIP/2.0\r\n"))
        // An answer in two pieces, the cut inside a header field, is one message.
        let split = Self.ok.index(Self.ok.startIndex, offsetBy: 40)
        try peer.send(String(Self.ok[..<split]))
        try await Task.sleep(for: .milliseconds(50))
        try peer.send(String(Self.ok[split...]))
        #expect(try await message(events).status == 200)
        // The flow's own keep-alive reaches the server, which answers with one CRLF.
        var heard = ""
        for _ in 0..<10 where !heard.contains("\r\n\r\n") { heard += try peer.receive(within: 2) }
        #expect(heard.contains("\r\n\r\n"))
        try peer.send("\r\n")
        _ = try await events.next("the pong", within: 5) { $0 == .keepAlivePong }
        flow.close()
        #expect(try await closure(events) == nil)
    }

    @Test func aStreamWhoseFramingIsLostIsClosedWithTheParseError() async throws {
        let peer = try LoopbackSIPPeer(datagram: false)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port);transport=tcp"))
        let events = EventRecorder(flow.events)
        try peer.accept(within: 5)
        _ = try await opened(events)
        try peer.send("SIP/2.0 200 OK\r\nCall-ID: no-length\r\n\r\n")
        let error = try await closure(events)
        guard case .framingLost(let parse)? = error else {
            Issue.record("expected the framing to be lost, got \(String(describing: error))")
            return
        }
        #expect(parse.kind == .missingHeader)
    }

    @Test(arguments: ["tcp", "tls"])
    func aStreamFlowToAClosedPortSaysTheConnectionWasRefused(transport: String) async throws {
        let port = try unusedLoopbackPort()
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(port);transport=\(transport)"))
        let error = try await closure(EventRecorder(flow.events))
        #expect(error == .connectFailed("connection refused — is the server running at 127.0.0.1:\(port)?"))
    }

    /// Why a TLS flow ended, which must be a failed handshake.
    private func tlsFailure(_ error: SIPTransportError?) throws -> String {
        let reason: String? = if case .tlsFailed(let reason)? = error { reason } else { nil }
        return try #require(reason, "expected a failed handshake, got \(String(describing: error))")
    }

    /// A TLS server on `address` (Signaling's own wss:// server; any TLS server will do for the
    /// handshake) whose certificate a throwaway CA signed for 127.0.0.1 and localhost, and flow
    /// options that trust that CA.
    private func withTLSServer(on address: String, _ body: (_ port: Int, _ trusting: SIPFlowOptions) async throws -> Void) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: address, port: 0,
            certificatePath: certificates.serverCertificatePath, privateKeyPath: certificates.serverKeyPath))
        defer { server.stop() }
        var options = SIPFlowOptions()
        options.tls = .customCA(path: certificates.caPath)
        try await body(server.port, options)
    }

    @Test func aTLSFlowOpensOnlyAfterItsHandshakeAndClosesCleanly() async throws {
        try await withTLSServer(on: "127.0.0.1") { port, options in
            let flow = SIPFlow(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(port);transport=tls"), options: options)
            let events = EventRecorder(flow.events)
            let (address, localPort) = try await opened(events)
            #expect(address == "127.0.0.1")
            #expect((localPort ?? 0) > 0)
            flow.close()
            #expect(try await closure(events) == nil)
        }
    }

    @Test func aTLSFlowChecksTheCertificateIsForTheServerItNamed() async throws {
        // The certificate names only 127.0.0.1 and localhost.
        try await withTLSServer(on: "127.0.0.2") { port, options in
            let flow = SIPFlow(server: try SIPServerAddress(parsing: "sips:127.0.0.2:\(port)"), options: options)
            #expect(try tlsFailure(try await closure(EventRecorder(flow.events))).contains("not for 127.0.0.2"))
        }
    }

    @Test func aTLSFlowToAPeerThatDoesNotSpeakTLSFailsItsHandshakeInWords() async throws {
        let peer = try LoopbackSIPPeer(datagram: false)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sips:127.0.0.1:\(peer.port)"))
        let events = EventRecorder(flow.events)
        try peer.accept(within: 5)
        // Our ClientHello, answered with plain SIP.
        #expect(try !peer.receive(within: 5).isEmpty)
        try peer.send(Self.ok)
        #expect(try tlsFailure(try await closure(events)).contains("does not seem to speak TLS"))
    }

    @Test func aTLSHandshakeTheServerNeverAnswersTimesOut() async throws {
        let peer = try LoopbackSIPPeer(datagram: false)
        var options = SIPFlowOptions()
        options.connectTimeout = .milliseconds(300)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sips:127.0.0.1:\(peer.port)"), options: options)
        let events = EventRecorder(flow.events)
        try peer.accept(within: 5)
        let error = try await closure(events)
        #expect(error == .connectTimedOut(after: .milliseconds(300)))
    }

    @Test func aTLSFlowWithAMissingCAFileEndsBeforeConnecting() async throws {
        var options = SIPFlowOptions()
        options.tls = .customCA(path: "/nonexistent/parley-ca.pem")
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "sips:127.0.0.1:5061"), options: options)
        #expect(try tlsFailure(try await closure(EventRecorder(flow.events))).contains("/nonexistent/parley-ca.pem"))
    }

    @Test func aWebSocketFlowAsksForTheSIPSubprotocolAndCarriesOneMessagePerFrame() async throws {
        let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
        defer { server.stop() }
        let serverEvents = EventRecorder(server.events)
        let flow = SIPFlow(server: try SIPServerAddress(parsing: "ws://127.0.0.1:\(server.port)/sip"))
        let events = EventRecorder(flow.events)
        let accepted = try await serverEvents.next("the flow", within: 5) { if case .accepted = $0 { true } else { false } }
        let peer = try #require(matching(accepted) { if case .accepted(let peer) = $0 { peer } else { nil } })
        let (address, port) = try await opened(events)
        #expect(address == nil && port == nil)
        try flow.send(try SIPMessage.parse(Array(Self.options.utf8)))
        let received = try await serverEvents.next("the OPTIONS", within: 5) { if case .peer(_, .text) = $0 { true } else { false } }
        let text: String? = matching(received) { if case .peer(_, .text(let text)) = $0 { text } else { nil } }
        #expect(text == Self.options)
        try server.send(Self.ok, to: peer)
        #expect(try await message(events).status == 200)
        flow.close()
        #expect(try await closure(events) == nil)
    }
}
