import Foundation
import Media
@testable import Parley
import Signaling
import TestSupport
import Testing

/// Two Parley phones registered at the real Kamailio (deploy/kamailio/) on loopback call each
/// other: INVITE challenged with 407 and answered, 180, 200 with the SDP answer, ACK, real ICE
/// on `lo`, DTLS-SRTP and Opus both ways, and BYE; a refused call ends busy.
@Suite(.serialized, .tags(.realPeer)) struct SIPCallThroughKamailioTests {
    static func media(play: String, record: String) throws -> MediaOptions {
        var media = MediaOptions()
        media.allowedInterfaces = ["lo"]
        media.ipv6 = false
        media.source = try AudioSourceSpec(play)
        media.sink = try AudioSinkSpec(record)
        media.disruptionTimeout = .milliseconds(400)
        return media
    }

    static func phone(_ user: String, at kamailio: KamailioRegistrar, play: String = "silence", record: String = "null") async throws -> SIPPhone {
        try await SIPPhone.register(server: "sip:127.0.0.1:\(kamailio.port)", user: user, domain: "parley.test", password: user + "-secret",
                                    media: try media(play: play, record: record), expiry: 120)
    }

    /// Alice dials bob and waits (bounded) for the offer at bob's phone.
    static func dialAndOffer(_ alice: SIPPhone, _ bob: SIPPhone, options: DialOptions = DialOptions()) async throws -> (call: Call, incoming: IncomingCall) {
        let offers = EventRecorder(bob.incomingCalls)
        let call = try await alice.dial("bob", options: options)
        let incoming = try await offers.next("bob's phone rings") { _ in true }
        return (call, incoming)
    }

    @Test func aliceCallsBobTheyHearEachOtherAndByeEndsItOnBothSides() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let aliceRecording = directory.appendingPathComponent("alice.wav").path
        let bobRecording = directory.appendingPathComponent("bob.wav").path
        let alice = try await Self.phone("alice", at: kamailio, play: "tone:440", record: aliceRecording)
        let bob = try await Self.phone("bob", at: kamailio, play: "tone:880", record: bobRecording)

        let (call, incoming) = try await Self.dialAndOffer(alice, bob)
        let aliceEvents = EventRecorder(call.events)
        #expect(incoming.callerNumber == "alice")
        _ = try await aliceEvents.next("ringing (180 through Kamailio)") { $0 == .state(.ringing) }
        let bobCall = incoming.call
        let bobEvents = EventRecorder(bobCall.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        _ = try await bobEvents.next("secured") { if case .secured = $0 { true } else { false } }
        try await ReconnectionTests.expectAudioBothWays(call, bobCall, "through Kamailio")

        await call.hangup()
        let ended = try await bobEvents.next("bob hears the BYE") { if case .state(.done) = $0 { true } else { false } }
        let reason = try #require(ended.endReason)
        #expect(reason.cause == "NORMAL_CLEARING")
        #expect(reason.localStatus == nil)
        let aliceReason = try #require(await call.terminationReason)
        #expect(aliceReason.cause == "NORMAL_CLEARING")
        #expect(aliceReason.localStatus == .endedByLocalUser)
        await alice.close()
        await bob.close()

        let aliceHeard = try #require(try Recording.firstToneFrequency(aliceRecording))
        let bobHeard = try #require(try Recording.firstToneFrequency(bobRecording))
        #expect(abs(aliceHeard - 880) <= 5, "alice heard \(aliceHeard) Hz")
        #expect(abs(bobHeard - 440) <= 5, "bob heard \(bobHeard) Hz")
    }

    /// Also: alice's caller id and custom header cross Kamailio to bob's offer (docs/sip.md,
    /// "Caller id and custom headers"), and a header the stack writes is refused before any INVITE.
    @Test func bobSeesAlicesCallerIDRejectsAndTheCallEndsBusy() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await Self.phone("alice", at: kamailio)
        let bob = try await Self.phone("bob", at: kamailio)
        var refused = DialOptions()
        refused.headers = [CustomHeader(name: "CSeq", value: "1 INVITE")]
        let error = try await #require(throws: ParleyError.self) { try await alice.dial("bob", options: refused) }
        #expect(error.kind == .configuration && error.message.contains("header CSeq is written by the SIP stack"))
        var options = DialOptions()
        options.callerName = #"Alice "A" \ L"#
        options.callerNumber = "+15551234"
        options.headers = [CustomHeader(name: "X-Account", value: "42")]
        let (call, incoming) = try await Self.dialAndOffer(alice, bob, options: options)
        #expect(incoming.callerName == #"Alice "A" \ L"#)
        #expect(incoming.callerNumber == "+15551234")
        #expect(incoming.headers == [CustomHeader(name: "X-Account", value: "42")])
        try await incoming.reject()
        let reason = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
        #expect(reason.cause == "USER_BUSY")
        #expect(reason.sipCode == 486)
        #expect(await incoming.call.terminationReason?.localStatus == .rejected)
        await alice.close()
        await bob.close()
    }

    @Test func aliceHangsUpWhileItRingsAndTheCancelEndsBobsOffer() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await Self.phone("alice", at: kamailio)
        let bob = try await Self.phone("bob", at: kamailio)
        let (call, incoming) = try await Self.dialAndOffer(alice, bob)
        let aliceEvents = EventRecorder(call.events)
        _ = try await aliceEvents.next("ringing") { $0 == .state(.ringing) }
        let bobEvents = EventRecorder(incoming.call.events)
        await call.hangup()
        let ended = try await bobEvents.next("bob hears the CANCEL") { if case .state(.done) = $0 { true } else { false } }
        #expect(try #require(ended.endReason).cause == "ORIGINATOR_CANCEL")
        #expect(await call.terminationReason?.localStatus == .endedByLocalUser)
        await #expect(throws: ParleyError.self) { try await incoming.answer() }
        await alice.close()
        await bob.close()
    }

    /// `parley call --no-register`: alice places a call without a binding. Kamailio challenges
    /// her INVITE with 407 and the account's credentials answer it; a call to her finds nobody
    /// (404), and a wrong password ends her call `authentication-failed` instead of looping.
    @Test func aliceCallsWithoutRegisteringAndHerInvitesChallengeIsAnswered() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await SIPPhone.connect(server: "sip:127.0.0.1:\(kamailio.port)", user: "alice", domain: "parley.test",
                                               password: "alice-secret", media: try Self.media(play: "silence", record: "null"))
        #expect(await alice.registration.grantedExpiry == nil)
        let bob = try await Self.phone("bob", at: kamailio)
        let toAlice = try await bob.dial("alice")
        let unreached = try await withTimeout(seconds: 10) { await toAlice.waitUntilDone() }
        #expect(unreached.sipCode == 404, "a call to the unregistered alice ended \(unreached)")

        let (call, incoming) = try await Self.dialAndOffer(alice, bob)
        #expect(incoming.callerNumber == "alice")
        let aliceEvents = EventRecorder(call.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        await call.hangup()
        let reason = try await withTimeout(seconds: 10) { await incoming.call.waitUntilDone() }
        #expect(reason.cause == "NORMAL_CLEARING")

        let wrong = try await SIPPhone.connect(server: "sip:127.0.0.1:\(kamailio.port)", user: "carol", domain: "parley.test",
                                               password: "not-carols", media: try Self.media(play: "silence", record: "null"))
        let refused = try await wrong.dial("bob")
        let refusedEvents = EventRecorder(refused.events)
        let failed = try await refusedEvents.next("authentication fails") { if case .error = $0 { true } else { false } }
        guard case .error(let error) = failed else { throw WaitTimedOut(what: "an error", seconds: 10, seen: "") }
        #expect(error.kind == .authenticationFailed)
        #expect(!error.message.contains("not-carols"))
        await wrong.close()
        await alice.close()
        await bob.close()
    }
}
