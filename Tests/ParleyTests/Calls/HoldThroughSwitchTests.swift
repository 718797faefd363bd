import Foundation
import Parley
import SDP
import Switch
import Locking
import TestSupport
import Testing

/// Hold in the SDP between two real clients through the embedded switch on loopback: each hold
/// and unhold re-offers the running media with its new direction (docs/calls.md, "Hold"), the
/// other side answers recvonly or inactive, and the audio follows.
@Suite(.serialized) struct HoldThroughSwitchTests {
    /// Every SDP one client sent and received, in order.
    final class SDPLog: Sendable {
        private let exchanges = Lock<[SDPExchange]>([])

        func note(_ exchange: SDPExchange) { exchanges.withLock { $0.append(exchange) } }

        /// The direction of the latest SDP of `kind` this client sent or received.
        func direction(_ kind: SDPExchange.Kind, _ way: SDPDirection) throws -> Direction? {
            let text = exchanges.withLock { $0.last { $0.kind == kind && $0.direction == way }?.sdp }
            let description = try SDPParser().parse(try #require(text, "no \(way) \(kind.rawValue)"))
            return description.media.first?.attributes.direction
        }

        func count(_ kind: SDPExchange.Kind) -> Int { exchanges.withLock { $0.filter { $0.kind == kind }.count } }

        func first(_ kind: SDPExchange.Kind) throws -> SessionDescription {
            try SDPParser().parse(try #require(exchanges.withLock { $0.first { $0.kind == kind }?.sdp }, "no \(kind.rawValue)"))
        }
    }

    @Test func holdAndUnholdRenegotiateTheDirectionBothWays() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let aliceSDP = SDPLog()
        let bobSDP = SDPLog()
        let bed = try await ReconnectionTests.connectedCall(through: embedded, aliceSDP: { aliceSDP.note($0) }, bobSDP: { bobSDP.note($0) })
        let (call, bobCall, aliceEvents, bobEvents) = (bed.call, bed.bobCall, bed.aliceEvents, bed.bobEvents)

        // Alice holds: she offers sendonly, bob answers recvonly, and neither sends.
        try await call.hold()
        #expect(try aliceSDP.direction(.holdOffer, .sent) == .sendonly)
        #expect(try aliceSDP.direction(.holdAnswer, .received) == .recvonly)
        #expect(try bobSDP.direction(.reoffer, .received) == .sendonly)
        #expect(try bobSDP.direction(.reanswer, .sent) == .recvonly)
        _ = try await bobEvents.next("remotely held") { $0 == .state(.remotelyHeld) }
        // The same ICE credentials and DTLS fingerprint: a direction change, not an ICE restart.
        let initial = try aliceSDP.first(.offer).media[0].attributes
        let holdOffer = try aliceSDP.first(.holdOffer).media[0].attributes
        #expect(initial.first(ICEUsernameFragment.self) == holdOffer.first(ICEUsernameFragment.self))
        #expect(initial.first(Fingerprint.self) == holdOffer.first(Fingerprint.self))
        _ = try await bobEvents.next("bob's media stopping while held") { $0 == .mediaDisrupted }
        _ = try await aliceEvents.next("alice's media stopping while held") { $0 == .mediaDisrupted }

        // Bob holds too: he offers sendonly, alice (holding) answers inactive.
        try await bobCall.hold()
        #expect(await bobCall.state == .doubleHeld)
        #expect(try bobSDP.direction(.holdOffer, .sent) == .sendonly)
        #expect(try aliceSDP.direction(.reanswer, .sent) == .inactive)
        _ = try await aliceEvents.next("alice double held") { $0 == .state(.doubleHeld) }

        // Alice lets go: she offers sendrecv, bob (still holding) answers sendonly.
        try await call.unhold()
        #expect(try aliceSDP.direction(.holdOffer, .sent) == .sendrecv)
        #expect(try aliceSDP.direction(.holdAnswer, .received) == .sendonly)
        #expect(await call.state == .remotelyHeld)
        _ = try await bobEvents.next("bob holding only") { $0 == .state(.held) }

        // Bob lets go: sendrecv both ways, and the audio comes back to both.
        try await bobCall.unhold()
        #expect(try bobSDP.direction(.holdOffer, .sent) == .sendrecv)
        #expect(try bobSDP.direction(.holdAnswer, .received) == .sendrecv)
        _ = try await aliceEvents.next("alice active again") { $0 == .state(.active) }
        _ = try await bobEvents.next("bob media back") { $0 == .mediaRestored }
        _ = try await aliceEvents.next("alice media back") { $0 == .mediaRestored }
        let received = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
        try await waitUntil("audio both ways after the holds") {
            let now = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
            return now.0 >= received.0 + 25 && now.1 >= received.1 + 25
        }
        #expect(aliceSDP.count(.restartOffer) == 0 && bobSDP.count(.restartOffer) == 0)

        await call.hangup()
        _ = try await bobEvents.next("the hangup") { if case .state(.done) = $0 { true } else { false } }
        await bed.alice.disconnect()
        await bed.bob.disconnect()
        await embedded.stop()
    }
}
