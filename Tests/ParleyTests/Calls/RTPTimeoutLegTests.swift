import Foundation
import Media
import Parley
import TestSupport
import Testing

/// The RTP timeout (`--rtp-timeout`, docs/calls.md "Media that stops") on two real legs over
/// loopback without ICE, as a classic SIP peer talks: a far end that goes away without a bye is
/// noticed within the bound, and a hold, when nothing is expected, does not count.
@Suite(.leakChecked, .serialized) struct RTPTimeoutLegTests {
    static let timeout = Duration.seconds(1)

    /// A caller with the RTP timeout and a callee, their plain RTP flowing both ways.
    static func connectedPair() async throws -> (caller: MediaLeg, callee: MediaLeg, callerEvents: EventRecorder<MediaLegEvent>) {
        var callerOptions = WithoutICELegTests.options(.plain, codec: "pcmu")
        callerOptions.rtpTimeout = timeout
        let caller = try MediaLeg(role: .controlling, options: callerOptions, logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: WithoutICELegTests.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let callerEvents = EventRecorder(caller.events)
        try await caller.applyAnswer(try await callee.answer(try await caller.makeOffer(), peerTrickles: false))
        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 10 }
        return (caller, callee, callerEvents)
    }

    @Test func aFarEndThatStopsSendingIsNoticedWithinTheTimeout() async throws {
        let (caller, callee, callerEvents) = try await Self.connectedPair()
        afterTest { await caller.stop(); await callee.stop() }
        let silentSince = ContinuousClock.now
        await callee.stop()
        _ = try await callerEvents.next("the caller noticing the silence", within: 5) { $0 == .stopped }
        let waited = ContinuousClock.now - silentSince
        #expect(waited >= Self.timeout && waited < Self.timeout + .seconds(2), "noticed after \(waited)")
    }

    @Test func aHoldDoesNotCountAndTheWaitStartsAgainAfterIt() async throws {
        let (caller, callee, callerEvents) = try await Self.connectedPair()
        afterTest { await caller.stop(); await callee.stop() }
        await caller.setHeld(true)
        await callee.stop()
        // Held for twice the timeout: nothing is expected, so nothing may fire.
        try await Task.sleep(for: Self.timeout * 2)
        let resumed = ContinuousClock.now
        await caller.setHeld(false)
        _ = try await callerEvents.next("the caller noticing the silence after the hold", within: 5) { $0 == .stopped }
        let waited = ContinuousClock.now - resumed
        #expect(waited >= Self.timeout - .milliseconds(50), "fired \(waited) after the hold ended: the hold counted")
    }
}
