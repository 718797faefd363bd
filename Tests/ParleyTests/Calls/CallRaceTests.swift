import ICE
import Logging
@testable import Parley
import Signaling
import TestSupport
import Testing

/// A call hung up while its dialect is still opening sends no invite or answer after the bye:
/// the hang-up lands inside `open`, and the `ensureLive(sending:)` check that follows it in
/// `Call`'s setup keeps the message off the wire. `Call` is driven through a recording
/// `CallSignalling` and a real media leg on loopback. The other `ensureLive` checks (candidates,
/// the hold re-offer, transfer and merge) are the same one-line guard and are not driven here.
@Suite(.leakChecked) struct CallRaceTests {
    /// Records what the call asked for; `open` can be held until the test lets it go.
    actor RecordingSignalling: CallSignalling {
        private(set) var requests: [String] = []
        private var holdsOpen: Bool
        private var entered: CheckedContinuation<Void, Never>?
        private var openEntered = false
        private var release: CheckedContinuation<Void, Never>?

        init(holdsOpen: Bool) {
            self.holdsOpen = holdsOpen
        }

        /// Returns once the call is inside `open`.
        func waitUntilOpening() async {
            if openEntered { return }
            await withCheckedContinuation { entered = $0 }
        }

        func letOpenFinish() {
            holdsOpen = false
            release?.resume()
            release = nil
        }

        func open(callID: String) async throws(ParleyError) {
            requests.append("open")
            openEntered = true
            entered?.resume()
            entered = nil
            if holdsOpen { await withCheckedContinuation { release = $0 } }
        }

        func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String? {
            requests.append("invite")
            return nil
        }

        func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) { requests.append("answer") }
        func ringing(callID: String) async { requests.append("ringing") }
        func hangup(callID: String, cause: HangupCause) async { requests.append("hangup") }
        func hold(callID: String, _ held: Bool) async throws(ParleyError) { requests.append("hold") }
        func sendDTMF(callID: String, digits: String) async throws(ParleyError) { requests.append("dtmf") }
        func transfer(callID: String, destination: String) async throws(ParleyError) { requests.append("transfer \(destination)") }
        func candidate(callID: String, line: String) async { requests.append("candidate") }
        func endOfCandidates(callID: String) async { requests.append("end-of-candidates") }
        func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String { throw ParleyError(kind: .callState, message: "not in this test") }
        func reattach(callID: String, sdp: String) async throws(ParleyError) { requests.append("reattach") }
        func waitUntilReady(within timeout: Duration) async -> Bool { true }
        func close() async { requests.append("close") }
    }

    static func media() -> MediaOptions {
        var media = MediaOptions()
        media.allowedInterfaces = ["lo"]
        media.ipv6 = false
        return media
    }

    static func call(_ direction: CallDirection, _ signalling: RecordingSignalling) -> Call {
        Call(id: "race", direction: direction, remoteParty: "bob", signalling: signalling, media: media(), logger: Logger(label: "test.race"))
    }

    /// Starts `setUp` (dial or answer), hangs the call up while its dialect is still opening,
    /// and returns what `setUp` threw and what the call asked of its signalling.
    static func hangUpWhileOpening(_ direction: CallDirection, _ setUp: @escaping @Sendable (Call) async -> ParleyError?) async
        -> (error: ParleyError?, requests: [String], call: Call) {
        let signalling = RecordingSignalling(holdsOpen: true)
        let call = Self.call(direction, signalling)
        let settingUp = Task { await setUp(call) }
        await signalling.waitUntilOpening()
        await call.hangup()
        await signalling.letOpenFinish()
        return (await settingUp.value, await signalling.requests, call)
    }

    @Test func anOutgoingCallHungUpBeforeItsInviteWentOutNeverSendsIt() async throws {
        let outcome = await Self.hangUpWhileOpening(.outgoing) { call in
            do throws(ParleyError) { try await call.dial(destination: "bob", options: DialOptions()) } catch { return error }
            return nil
        }
        let error = try #require(outcome.error, "dialling a call that was hung up succeeded")
        #expect(error.kind == .callState)
        #expect(outcome.requests == ["open", "hangup", "close"])
        #expect(await outcome.call.waitUntilDone().localStatus == .endedByLocalUser)
    }

    @Test func anIncomingCallHungUpBeforeItsAnswerWentOutNeverSendsIt() async throws {
        let offerer = try MediaLeg(role: .controlling, options: Self.media(), logger: Logger(label: "test.race"))
        let offer = try await offerer.makeOffer()
        afterTest { await offerer.stop() }
        let outcome = await Self.hangUpWhileOpening(.incoming) { call in
            do throws(ParleyError) { try await call.answer(offer: offer, media: nil) } catch { return error }
            return nil
        }
        let error = try #require(outcome.error, "answering a call that was hung up succeeded")
        #expect(error.kind == .callState)
        #expect(outcome.requests == ["open", "hangup", "close"])
    }

    @Test func aCallThatWasNotHungUpSendsItsInvite() async throws {
        let signalling = RecordingSignalling(holdsOpen: false)
        let call = Self.call(.outgoing, signalling)
        try await call.dial(destination: "bob", options: DialOptions())
        #expect(await signalling.requests.prefix(2) == ["open", "invite"])
        #expect(await call.state == .dialing)
        await call.hangup()
    }
}
