import Foundation
@testable import Signaling
import TestSupport
import Testing

/// REGISTER over a real UDP flow to a loopback registrar that this test plays by hand: digest
/// challenges answered, a wrong password ended as a failed login, a silent registrar ended by
/// Timer F, the binding removed on unregister. (Kamailio as the real registrar is the
/// end-to-end test's; docs/sip.md.)
@Suite(.leakChecked) struct SIPRegistrationTests {
    static let challenge = SIPHeader(.wwwAuthenticate, #"Digest realm="parley.test", nonce="n0nce1", qop="auth", algorithm=MD5"#)

    private func registration(to peer: LoopbackSIPPeer, password: String = "right", timers: SIPTimers = SIPTimers()) async throws -> SIPRegistration {
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port)"), timers: timers)
        try await endpoint.open()
        return SIPRegistration(endpoint: endpoint, account: SIPAccount(user: "ann", domain: "parley.test", password: password), expiry: 300)
    }

    /// The next request that is not a retransmission of the last one: on a busy machine Timer E
    /// may resend a REGISTER before its answer is read, and that copy must not be taken for
    /// the next request.
    private func request(from peer: LoopbackSIPPeer) throws -> SIPMessage {
        for _ in 0..<20 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            let branch = try message.topVia().parameters["branch"] ?? ""
            if peer.takeFirstSight(of: branch) { return message }
        }
        throw LoopbackPeerFailed(description: "only retransmissions arrived")
    }

    private func answer(_ request: SIPMessage, _ status: Int, _ reason: String, headers: [SIPHeader] = [], on peer: LoopbackSIPPeer) throws {
        try peer.send(SIPMessage.response(to: request, status: status, reason: reason, toTag: "reg1", headers: headers).serializedText)
    }

    @Test func aChallengedRegisterIsAnsweredWithDigestAndTheGrantedExpiryKept() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let registration = try await registration(to: peer)
        let registrar = Task.detached { () throws -> (SIPMessage, SIPMessage) in
            let first = try request(from: peer)
            try answer(first, 401, "Unauthorized", headers: [Self.challenge], on: peer)
            let second = try request(from: peer)
            let contact = try #require(second.header(.contact)).value
            try answer(second, 200, "OK", headers: [SIPHeader(.contact, contact + ";expires=120")], on: peer)
            return (first, second)
        }
        let granted = try await registration.register()
        let (first, second) = try await registrar.value
        #expect(granted == 120)
        #expect(first.method == "REGISTER" && first.requestURI == "sip:parley.test")
        #expect(first.header(.authorization) == nil)
        let authorization = try #require(second.header(.authorization)).value
        #expect(authorization.contains(#"username="ann""#) && authorization.contains(#"realm="parley.test""#) && authorization.contains("nc=00000001"))
        #expect(!authorization.contains("right"))
        #expect(try second.callID() == first.callID())
        #expect(try second.cseq().number == first.cseq().number + 1)
        #expect(try first.topVia().parameters["branch"] != second.topVia().parameters["branch"])
        #expect(second.header(.expires)?.value == "300")
        await registration.endpoint.close()
    }

    @Test func anInstanceGoesInTheContactAndOurDialogsContactsSayOb() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port)"))
        try await endpoint.open()
        let instance = SIPInstance.random()
        let registration = SIPRegistration(endpoint: endpoint, account: SIPAccount(user: "ann", domain: "parley.test", password: "right"),
                                           expiry: 300, instance: instance)
        #expect(instance.urn.count == 45 && instance.urn.hasPrefix("urn:uuid:"))
        #expect(await !endpoint.contactURI(user: "ann").contains(";ob"))
        let registrar = Task.detached { () throws -> SIPMessage in
            let register = try request(from: peer)
            let contact = try #require(register.header(.contact)).value
            try answer(register, 200, "OK", headers: [SIPHeader(.contact, contact + ";expires=300"),
                                                      SIPHeader(.contact, "<sip:ann@192.0.2.9:5060>;expires=40")], on: peer)
            return register
        }
        try await registration.register()
        let register = try await registrar.value
        let contact = try #require(try register.contacts()?.first)
        #expect(contact.parameters["+sip.instance"] == "<\(instance.urn)>")
        #expect(contact.parameters["reg-id"] == "1")
        // The REGISTER binds the flow's URI; `ob` belongs in the Contacts of dialogs (RFC 5626).
        #expect(!contact.uri.contains(";ob"))
        #expect(register.values(.supported).map(\.value) == ["outbound", "path"])
        #expect(await registration.bindings == [contact.uri, "sip:ann@192.0.2.9:5060"])
        #expect(await endpoint.contactURI(user: "ann").hasSuffix(";ob"))
        #expect(await endpoint.bindingURI(user: "ann") == contact.uri)
        await endpoint.close()
    }

    @Test func aSecondChallengeForTheSameRealmIsAFailedLoginThatNeverShowsThePassword() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let registration = try await registration(to: peer, password: "wrong-secret")
        let registrar = Task.detached { () throws in
            for _ in 0..<2 { try answer(try request(from: peer), 401, "Unauthorized", headers: [Self.challenge], on: peer) }
        }
        await #expect {
            try await registration.register()
        } throws: { error in
            guard let error = error as? SignalingError, case .authenticationFailed = error else { return false }
            return error.code == "authentication-failed" && !error.description.contains("wrong-secret")
        }
        try await registrar.value
        await registration.endpoint.close()
    }

    @Test func aRegistrarThatNeverAnswersEndsTheRegisterWithATimeout() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        var timers = SIPTimers()
        timers.t1 = 0.02
        let registration = try await registration(to: peer, timers: timers)
        let started = ContinuousClock.now
        await #expect(throws: SignalingError.requestTimedOut(method: "REGISTER", after: .milliseconds(1280))) {
            try await registration.register()
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        // Timer E retransmitted it meanwhile: the same request, more than once.
        let copies = try (0..<3).map { _ in try SIPMessage.parse(Array(try peer.receive(within: 1).utf8)) }
        #expect(Set(try copies.map { try $0.topVia().parameters["branch"] ?? "" }).count == 1)
        #expect(copies.allSatisfy { $0.method == "REGISTER" })
        await registration.endpoint.close()
    }

    @Test func unregisterRemovesTheBindingWithExpiresZero() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let registration = try await registration(to: peer)
        let registrar = Task.detached { () throws -> SIPMessage in
            try answer(try request(from: peer), 200, "OK", headers: [SIPHeader(.expires, "300")], on: peer)
            let removal = try request(from: peer)
            try answer(removal, 200, "OK", on: peer)
            return removal
        }
        #expect(try await registration.register() == 300)
        await registration.unregister()
        let removal = try await registrar.value
        #expect(removal.header(.expires)?.value == "0")
        #expect(await registration.grantedExpiry == nil)
        await registration.endpoint.close()
    }

    @Test func theBindingIsRefreshedBeforeItExpires() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let registration = try await registration(to: peer)
        let registrar = Task.detached { () throws -> (SIPMessage, SIPMessage) in
            let first = try request(from: peer)
            try answer(first, 200, "OK", headers: [SIPHeader(.expires, "2")], on: peer)
            // Half of the 2 s granted: the refresh comes about 1 s later, well before the end.
            let refresh = try request(from: peer)
            try answer(refresh, 200, "OK", headers: [SIPHeader(.expires, "300")], on: peer)
            try answer(try request(from: peer), 200, "OK", on: peer)
            return (first, refresh)
        }
        let started = ContinuousClock.now
        #expect(try await registration.register() == 2)
        try await waitUntil("the refresh's lifetime kept", within: 5) { await registration.grantedExpiry == 300 }
        #expect(ContinuousClock.now - started < .seconds(2))
        await registration.unregister()
        let (first, refresh) = try await registrar.value
        #expect(try refresh.callID() == first.callID())
        #expect(try refresh.cseq().number == first.cseq().number + 1)
        await registration.endpoint.close()
    }
}
