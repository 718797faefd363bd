import Foundation
@testable import Parley
import Signaling
import TestSupport
import Testing

/// Attended transfer (RFC 3891) between three Parley phones through the real Kamailio
/// (docs/sip.md, "Transfer and forward"): alice talks to bob, calls carol to consult, then
/// REFERs bob to carol with the consultation's dialog in the Refer-To's embedded Replaces. Bob
/// follows it with an INVITE carrying that Replaces; carol's phone finds her call with alice in
/// it, answers bob on that same call (no new call offered, no ringing) and ends alice's dialog
/// with BYE. Bob and carol then hear each other, and alice's calls have both ended.
@Suite(.serialized, .tags(.realPeer)) struct SIPAttendedTransferThroughKamailioTests {
    @Test func aliceTransfersBobToCarolAttendedAndCarolsCallGoesOnWithBob() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await SIPCallThroughKamailioTests.phone("alice", at: kamailio, play: "tone:440")
        let bob = try await SIPCallThroughKamailioTests.phone("bob", at: kamailio, play: "tone:880")
        let carol = try await SIPCallThroughKamailioTests.phone("carol", at: kamailio, play: "tone:660")

        let (first, bobOffer) = try await SIPCallThroughKamailioTests.dialAndOffer(alice, bob)
        let firstEvents = EventRecorder(first.events)
        try await bobOffer.answer()
        _ = try await firstEvents.next("alice and bob talk") { $0 == .state(.active) }

        let carolOffers = EventRecorder(carol.incomingCalls)
        let consultation = try await alice.dial("carol")
        let consultationEvents = EventRecorder(consultation.events)
        let carolOffer = try await carolOffers.next("carol's phone rings") { _ in true }
        try await carolOffer.answer()
        _ = try await consultationEvents.next("alice and carol talk") { $0 == .state(.active) }
        let carolCall = carolOffer.call
        let carolEvents = EventRecorder(carolCall.events)
        let bobEvents = EventRecorder(bobOffer.call.events)

        // The consultation as carol will see it: her tag is the to-tag, alice's the from-tag.
        let dialog = try #require(await alice.calls[consultation.id]?.dialog)
        let replaces = SIPReplaces(callID: dialog.id.callID, toTag: dialog.id.remoteTag, fromTag: dialog.id.localTag)
        let escaped = replaces.value.replacingOccurrences(of: "@", with: "%40").replacingOccurrences(of: ";", with: "%3B")
            .replacingOccurrences(of: "=", with: "%3D")
        try await first.transfer(to: "sip:carol@parley.test?Replaces=\(escaped)")

        // Alice's transfer completed (bob's NOTIFY of carol's 200), and carol ended the consultation.
        let firstEnd = try await firstEvents.next("alice leaves bob's call") { if case .state(.done) = $0 { true } else { false } }
        #expect(firstEnd.endReason?.localStatus == .sessionCompleted)
        let consultationEnd = try await consultationEvents.next("carol ends alice's consultation") { if case .state(.done) = $0 { true } else { false } }
        #expect(consultationEnd.endReason?.cause == "NORMAL_CLEARING")

        // Carol's call took bob in alice's place: the same call, not a new offer.
        _ = try await carolEvents.next("carol's call is replaced by bob's") { $0 == .transfer(.transferred(destination: "bob")) }
        _ = try await bobEvents.next("bob's call went on to carol") { $0 == .transfer(.transferred(destination: "sip:carol@parley.test")) }
        try await ReconnectionTests.expectAudioBothWays(bobOffer.call, carolCall, "after the attended transfer")
        #expect(await carol.activeCalls.map(\.id) == [carolCall.id])
        #expect(await carolCall.state == .active)

        await bobOffer.call.hangup()
        let carolEnd = try await carolEvents.next("bob's BYE ends carol's call") { if case .state(.done) = $0 { true } else { false } }
        #expect(carolEnd.endReason?.cause == "NORMAL_CLEARING")
        await alice.close()
        await bob.close()
        await carol.close()
    }

    /// An INVITE with a Replaces carol cannot take is refused as RFC 3891 §3 says, and nothing
    /// rings: no dialog of hers by that name (481), a field that cannot be read (400), and her
    /// answered call named `early-only` (486).
    @Test func anInviteWhoseReplacesCarolCannotTakeIsRefused() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await SIPCallThroughKamailioTests.phone("alice", at: kamailio)
        let bob = try await SIPCallThroughKamailioTests.phone("bob", at: kamailio)
        let carol = try await SIPCallThroughKamailioTests.phone("carol", at: kamailio)
        let carolOffers = EventRecorder(carol.incomingCalls)
        let consultation = try await alice.dial("carol")
        let consultationEvents = EventRecorder(consultation.events)
        try await carolOffers.next("carol's phone rings") { _ in true }.answer()
        _ = try await consultationEvents.next("alice and carol talk") { $0 == .state(.active) }
        let dialog = try #require(await alice.calls[consultation.id]?.dialog)
        let answered = SIPReplaces(callID: dialog.id.callID, toTag: dialog.id.remoteTag, fromTag: dialog.id.localTag, earlyOnly: true)

        for (replaces, status) in [("nothing@host;to-tag=x;from-tag=y", 481), ("not a dialog", 400), (answered.value, 486)] {
            var options = DialOptions()
            options.headers = [CustomHeader(name: "Replaces", value: replaces)]
            let call = try await bob.dial("carol", options: options)
            let reason = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
            #expect(reason.sipCode == status, "Replaces: \(replaces)")
        }
        #expect(await carol.activeCalls.count == 1)
        #expect(await consultation.state == .active)
        await alice.close()
        await bob.close()
        await carol.close()
    }
}
