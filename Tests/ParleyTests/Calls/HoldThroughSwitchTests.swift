import Foundation
import Parley
import SDP
import Signaling
import Switch
import Synchronization
import TestSupport
import Testing

/// Hold in the SDP between two real clients through the embedded switch on loopback: each hold
/// and unhold re-offers the running media with its new direction (docs/calls.md, "Hold"), the
/// other side answers recvonly or inactive, and the audio follows.
@Suite(.serialized) struct HoldThroughSwitchTests {
    /// Every SDP one client sent and received, in order.
    final class SDPLog: Sendable {
        private let exchanges = Mutex<[SDPExchange]>([])

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

    static func client(_ login: String, at url: WebSocketURL, play: String, log: SDPLog) throws -> VoiceClient {
        var configuration = try CallThroughSwitchTests.configuration(login, at: url, play: play)
        configuration.media.sdpObserver = { log.note($0) }
        return VoiceClient(configuration: configuration)
    }

    @Test func holdAndUnholdRenegotiateTheDirectionBothWays() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let aliceSDP = SDPLog()
        let bobSDP = SDPLog()
        let alice = try Self.client("alice", at: embedded.url, play: "tone:440", log: aliceSDP)
        let bob = try Self.client("bob", at: embedded.url, play: "tone:880", log: bobSDP)
        let bobClientEvents = EventRecorder(bob.events)
        try await alice.connect()
        try await bob.connect()
        let call = try await alice.dial("bob")
        let aliceEvents = EventRecorder(call.events)
        let offered = try await bobClientEvents.next("an incoming call") { if case .incomingCall = $0 { true } else { false } }
        let incoming = try #require(offered.incomingCall)
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        let bobCall = incoming.call
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await waitUntil("audio both ways") {
            let received = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
            return received.0 >= 25 && received.1 >= 25
        }

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
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }
}
