import Foundation
import Signaling
import Switch
import TestSupport
import Testing

@Suite(.leakChecked) struct SwitchCallTests {
    /// alice calls bob through the switch; returns both clients, their events and the call id.
    private func placeCall(_ harness: SwitchHarness, headers: [CustomHeader] = [], trickle: Bool = false) async throws
        -> (alice: VertoClient, aliceEvents: EventRecorder<VertoEvent>, bob: VertoClient, bobEvents: EventRecorder<VertoEvent>, callID: String)
    {
        let (alice, aliceEvents) = try await harness.readyClient("alice", "alice-secret")
        let (bob, bobEvents) = try await harness.readyClient("bob", "bob-secret")
        let callID = UUID().uuidString.lowercased()
        var dial = VertoDialParameters(callID: callID, destination: "bob")
        dial.callerName = "Alice"
        dial.callerNumber = "1001"
        dial.customHeaders = headers
        dial.clientState = "aGVsbG8="
        dial.trickle = trickle
        let created = try await alice.invite(dial, sdp: SwitchHarness.offer)
        #expect(created["message"] == "CALL CREATED")
        #expect(created["callID"]?.stringValue == callID)
        return (alice, aliceEvents, bob, bobEvents, callID)
    }

    @Test func inviteRingingAnswerByeRoundTrip() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let headers = [CustomHeader(name: "X-Account", value: "42")]
        let call = try await placeCall(harness, headers: headers)

        let incoming = try await call.bobEvents.next("incoming call") { if case .incomingCall = $0 { true } else { false } }
        let offer = try #require(matching(incoming) { if case .incomingCall(let offer) = $0 { offer } else { nil } })
        #expect(offer.callID == call.callID)
        #expect(offer.sdp == SwitchHarness.offer)
        #expect(offer.callerName == "Alice")
        #expect(offer.callerNumber == "1001")
        #expect(offer.customHeaders == headers)
        #expect(offer.clientState == "aGVsbG8=")
        _ = try await call.aliceEvents.next("ringing") { if case .ringing(let progress) = $0 { progress.callID == call.callID } else { false } }

        let answered = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        #expect(answered["message"] == "CALL ANSWERED")
        let answer = try await call.aliceEvents.next("answer") { if case .answered = $0 { true } else { false } }
        #expect(answer == .answered(VertoCallProgress(callID: call.callID, sdp: SwitchHarness.answer, customHeaders: [], telnyxSessionID: nil,
                                                       telnyxLegID: nil, params: ["callID": .string(call.callID), "sdp": .string(SwitchHarness.answer)])))
        #expect(await harness.embedded.activeCallIDs == [call.callID])

        let ended = try await call.alice.bye(callID: call.callID, cause: .normalClearing)
        #expect(ended["message"] == "CALL ENDED")
        let bye = try await call.bobEvents.next("bye") { if case .remoteHangup = $0 { true } else { false } }
        #expect(bye == .remoteHangup(callID: call.callID, cause: HangupCause(cause: "NORMAL_CLEARING", causeCode: 16)))
        #expect(await harness.embedded.activeCallIDs.isEmpty)
    }

    @Test func rejectingAnIncomingCallSendsUserBusyToTheCaller() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bobEvents.next("incoming call") { if case .incomingCall = $0 { true } else { false } }
        _ = try await call.bob.bye(callID: call.callID, cause: HangupCause(cause: "USER_BUSY", causeCode: 17, sipCode: 486, sipReason: "Busy Here"))
        let bye = try await call.aliceEvents.next("bye") { if case .remoteHangup = $0 { true } else { false } }
        #expect(bye == .remoteHangup(callID: call.callID, cause: HangupCause(cause: "USER_BUSY", causeCode: 17, sipCode: 486, sipReason: "Busy Here")))
    }

    @Test func holdAndUnholdReportHoldStateAndReachTheOtherSide() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        #expect(try await call.alice.modify(callID: call.callID, action: .hold) == "held")
        let held = try await call.bobEvents.next("remote hold") { if case .modify(_, "hold", _) = $0 { true } else { false } }
        let (heldCall, params) = try #require(matching(held) { if case .modify(let heldCall, _, let params) = $0 { (heldCall, params) } else { nil } })
        #expect(heldCall == call.callID)
        #expect(params["holdState"] == "held")
        #expect(try await call.alice.modify(callID: call.callID, action: .toggleHold) == "active")
        _ = try await call.bobEvents.next("remote unhold") { if case .modify(_, "unhold", _) = $0 { true } else { false } }
    }

    @Test func dtmfInfoIsRelayedAndBadDigitsAreRefused() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        _ = try await call.alice.info(callID: call.callID, dtmf: "12#")
        let info = try await call.bobEvents.next("info") { if case .info = $0 { true } else { false } }
        let (callID, params) = try #require(matching(info) { if case .info(let callID, let params) = $0 { (callID, params) } else { nil } })
        #expect(callID == call.callID)
        #expect(params["dtmf"] == "12#")
        await #expect(throws: SignalingError.serverError(code: -32602, message: "dtmf must be digits 0-9, *, # or A-D", method: "telnyx_rtc.info")) {
            try await call.alice.info(callID: call.callID, dtmf: "9x")
        }
    }

    @Test func trickledCandidatesReachACalleeInTheInviteThenAsMessagesOnceItTrickles() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness, trickle: true)
        let line = "candidate:842163049 1 udp 1677729535 192.0.2.10 54400 typ srflx raddr 10.0.0.2 rport 54400"
        _ = try await call.alice.candidate(VertoCandidate(callID: call.callID, candidate: line, sdpMid: "0", sdpMLineIndex: 0))
        _ = try await call.alice.endOfCandidates(callID: call.callID)
        let incoming = try await call.bobEvents.next("incoming call") { if case .incomingCall = $0 { true } else { false } }
        let offer = try #require(matching(incoming) { if case .incomingCall(let offer) = $0 { offer } else { nil } })
        #expect(offer.params["trickle"] == true)
        #expect(offer.sdp.contains("a=\(line)\r\n"), "the callee may not trickle: the candidates are in its SDP")
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer, trickle: true)
        let answer = try await call.aliceEvents.next("answer") { if case .answered = $0 { true } else { false } }
        let progress = try #require(matching(answer) { event -> VertoCallProgress? in if case .answered(let progress) = event { progress } else { nil } })
        #expect(progress.params["trickle"] == true)
        _ = try await call.bob.candidate(VertoCandidate(callID: call.callID, candidate: line, sdpMid: "0", sdpMLineIndex: 0))
        _ = try await call.bob.endOfCandidates(callID: call.callID)
        let received = try await call.aliceEvents.next("candidate") { if case .remoteCandidate = $0 { true } else { false } }
        #expect(received == .remoteCandidate(VertoCandidate(callID: call.callID, candidate: line, sdpMid: "0", sdpMLineIndex: 0)))
        _ = try await call.aliceEvents.next("end of candidates") { $0 == .remoteEndOfCandidates(callID: call.callID) }
    }

    @Test func updateMediaIsAnsweredByTheOtherClient() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        let bob = call.bob, bobEvents = call.bobEvents, callID = call.callID
        let responder = Task {
            let request = try await bobEvents.next("updateMedia") { if case .mediaUpdateRequest = $0 { true } else { false } }
            let (id, requestCallID, offer) = try #require(matching(request) { if case .mediaUpdateRequest(let id, let requestCallID, let offer, _) = $0 { (id, requestCallID, offer) } else { nil } })
            #expect(requestCallID == callID)
            #expect(offer == SwitchHarness.offer)
            await bob.answerMediaUpdate(requestID: id, callID: callID, answer: .success(SwitchHarness.answer))
        }
        let answer = try await call.alice.updateMedia(callID: call.callID, offer: SwitchHarness.offer)
        #expect(answer == SwitchHarness.answer)
        try await responder.value
    }

    @Test func updateMediaTheOtherSideNeverAnswersFailsWithAMediaError() async throws {
        let harness = try await SwitchHarness.start { $0.relayTimeout = .milliseconds(500) }
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        await #expect(throws: SignalingError.sessionError(message: "MEDIA ERROR: the other party did not answer updateMedia", cause: nil, causeCode: nil)) {
            _ = try await call.alice.updateMedia(callID: call.callID, offer: SwitchHarness.offer)
        }
    }

    @Test func callToAnUnknownDestinationIsClearedAsUnallocatedNumber() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (alice, events) = try await harness.readyClient("alice", "alice-secret")
        let callID = UUID().uuidString.lowercased()
        _ = try await alice.invite(VertoDialParameters(callID: callID, destination: "+15550000"), sdp: SwitchHarness.offer)
        let bye = try await events.next("bye") { if case .remoteHangup = $0 { true } else { false } }
        let (endedID, cause) = try #require(matching(bye) { if case .remoteHangup(let endedID, let cause) = $0 { (endedID, cause) } else { nil } })
        #expect(endedID == callID)
        #expect(cause.cause == "UNALLOCATED_NUMBER")
        #expect(cause.causeCode == 1)
        #expect(cause.sipCode == 404)
    }

    @Test func requestsForCallsThatDoNotExistGetSessionErrors() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (alice, _) = try await harness.readyClient("alice", "alice-secret")
        await #expect(throws: SignalingError.sessionError(message: "CALL DOES NOT EXIST", cause: nil, causeCode: nil)) {
            _ = try await alice.bye(callID: "no-such-call", cause: .normalClearing)
        }
    }

    @Test func droppedSessionIsReofferedOnReloginAndEndedAfterTheDetachTimeout() async throws {
        let harness = try await SwitchHarness.start { $0.detachTimeout = .milliseconds(1500) }
        afterTest { await harness.embedded.stop() }
        let call = try await placeCall(harness)
        _ = try await call.bob.answer(callID: call.callID, sdp: SwitchHarness.answer)
        _ = try await call.aliceEvents.next("answer") { if case .answered = $0 { true } else { false } }
        let sessid = await call.alice.sessid

        // alice's socket drops; she logs in again with the same sessid and gets the call back.
        await call.alice.disconnect()
        _ = try await call.aliceEvents.next("socket closed") { if case .socketClosed = $0 { true } else { false } }
        let (again, againEvents) = try await harness.readyClient("alice", "alice-secret", sessid: sessid)
        let attach = try await againEvents.next("attach re-offer") { if case .attachOffer = $0 { true } else { false } }
        let offer = try #require(matching(attach) { if case .attachOffer(let offer) = $0 { offer } else { nil } })
        #expect(offer.callID == call.callID)
        #expect(offer.sdp == SwitchHarness.answer, "the re-offer carries the other side's latest SDP")
        let ready = try await againEvents.next("clientReady") { if case .clientReady = $0 { true } else { false } }
        #expect(ready == .clientReady(reattachedSessions: [call.callID]))
        _ = try await again.answer(callID: call.callID, sdp: SwitchHarness.offer, attach: true)
        _ = try await call.bobEvents.next("media update after re-attach") { if case .mediaUpdateRequest = $0 { true } else { false } }

        // bob's socket drops and he never comes back: the call ends for alice after the timeout.
        await call.bob.disconnect()
        let bye = try await againEvents.next("recovery timeout bye", within: 10) { if case .remoteHangup = $0 { true } else { false } }
        #expect(bye == .remoteHangup(callID: call.callID, cause: .recoveryOnTimerExpire))
        #expect(await harness.embedded.activeCallIDs.isEmpty)
    }

    @Test func aSecondLoginWithTheSameSessidPuntsTheFirst() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (first, firstEvents) = try await harness.readyClient("alice", "alice-secret")
        let sessid = await first.sessid
        _ = try await harness.readyClient("alice", "alice-secret", sessid: sessid)
        _ = try await firstEvents.next("punt") { $0 == .punted }
        _ = try await firstEvents.next("socket closed") { if case .socketClosed = $0 { true } else { false } }
    }

    @Test func anotherUserCannotTakeOverASessid() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (first, _) = try await harness.readyClient("alice", "alice-secret")
        let sessid = await first.sessid
        let (intruder, _) = harness.client(.password(login: "bob", password: "bob-secret"), sessid: sessid)
        await #expect(throws: SignalingError.authenticationFailed(message: "Session in use")) { try await intruder.connect() }
    }
}
