import Foundation
import Parley
import Switch
import Locking
import TestSupport
import Testing

/// Hold between two real clients through the embedded switch on loopback, as the Telnyx SDKs
/// hold: Verto's `modify` alone (docs/calls.md, "Hold"). The switch relays it; the held side
/// stops sending on the relayed notice, the holder on its own, and no SDP re-offer goes anywhere.
@Suite(.serialized) struct HoldThroughSwitchTests {
    /// Every SDP one client sent and received, in order.
    final class SDPLog: Sendable {
        private let exchanges = Lock<[SDPExchange]>([])

        func note(_ exchange: SDPExchange) { exchanges.withLock { $0.append(exchange) } }

        func count(_ kind: SDPExchange.Kind) -> Int { exchanges.withLock { $0.filter { $0.kind == kind }.count } }

        var all: Int { exchanges.withLock { $0.count } }
    }

    @Test func holdAndUnholdBySignallingAloneStopAndRestoreTheAudioBothWays() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let aliceSDP = SDPLog()
        let bobSDP = SDPLog()
        let bed = try await ReconnectionTests.connectedCall(through: embedded, aliceSDP: { aliceSDP.note($0) }, bobSDP: { bobSDP.note($0) })
        let (call, bobCall, aliceEvents, bobEvents) = (bed.call, bed.bobCall, bed.aliceEvents, bed.bobEvents)
        let negotiated = (aliceSDP.all, bobSDP.all)

        // Alice holds: bob learns it from the relayed modify, and neither sends.
        try await call.hold()
        _ = try await bobEvents.next("remotely held") { $0 == .state(.remotelyHeld) }
        _ = try await bobEvents.next("bob's media stopping while held") { $0 == .mediaDisrupted }
        _ = try await aliceEvents.next("alice's media stopping while held") { $0 == .mediaDisrupted }

        // Bob holds too, alice lets go: each side follows the other's notice.
        try await bobCall.hold()
        #expect(await bobCall.state == .doubleHeld)
        _ = try await aliceEvents.next("alice double held") { $0 == .state(.doubleHeld) }
        try await call.unhold()
        #expect(await call.state == .remotelyHeld)
        _ = try await bobEvents.next("bob holding only") { $0 == .state(.held) }

        // Bob lets go: the audio comes back to both.
        try await bobCall.unhold()
        _ = try await aliceEvents.next("alice active again") { $0 == .state(.active) }
        _ = try await bobEvents.next("bob media back") { $0 == .mediaRestored }
        _ = try await aliceEvents.next("alice media back") { $0 == .mediaRestored }
        let received = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
        try await waitUntil("audio both ways after the holds") {
            let now = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
            return now.0 >= received.0 + 25 && now.1 >= received.1 + 25
        }
        // Not one SDP after the call's own offer and answer: no hold re-offer, no ICE restart.
        #expect(aliceSDP.count(.holdOffer) == 0 && bobSDP.count(.holdOffer) == 0)
        #expect(aliceSDP.all == negotiated.0 && bobSDP.all == negotiated.1)

        await call.hangup()
        _ = try await bobEvents.next("the hangup") { if case .state(.done) = $0 { true } else { false } }
        await bed.alice.disconnect()
        await bed.bob.disconnect()
        await embedded.stop()
    }
}
