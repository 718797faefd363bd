import Foundation
import Media
@testable import Parley
import SDP
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
        // No RTP while held is what a hold means, not a fault: neither side reports disruption
        // (the switch's clients wait 400 ms without RTP before they would).
        try await Self.expectNoDisruption(aliceEvents, bobEvents, for: .seconds(1.5))

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

    /// Neither recorder saw `mediaDisrupted` in `span` from now.
    static func expectNoDisruption(_ a: EventRecorder<CallEvent>, _ b: EventRecorder<CallEvent>, for span: Duration) async throws {
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        // The second recorder looks back over the whole span the first one waited through.
        for (events, within) in [(a, seconds), (b, 0.1)] {
            await #expect(throws: WaitTimedOut.self) {
                _ = try await events.next("media disrupted while held", within: within) { $0 == .mediaDisrupted }
            }
        }
    }

    /// A far end that holds with signalling only (Verto's `modify` `hold`, no re-offer, as the
    /// Telnyx SDKs do) and keeps sending its audio: the held party plays silence all through the
    /// hold, says it is remotely held, and reports no disruption; after the unhold it hears the
    /// holder again.
    @Test func aHoldBySignallingOnlySilencesTheHolderAtTheHeldParty() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bobRecording = directory.appendingPathComponent("bob.wav").path
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "tone:440", record: "null")
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "tone:880", record: bobRecording)
        let (call, offered) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob)
        let aliceEvents = EventRecorder(call.events)
        let bobCall = offered.call
        let bobEvents = EventRecorder(bobCall.events)
        try await offered.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, bobCall, "before the hold")

        // Alice's hold goes out as the SDKs send it: the signalling alone, her media untouched.
        try await call.signalling.hold(callID: call.id, true)
        _ = try await bobEvents.next("remotely held") { $0 == .state(.remotelyHeld) }
        let heldAt = await bobCall.statistics().audio?.totalSamplesPlayed ?? 0
        let arrived = await bobCall.statistics().audio?.packetsReceived ?? 0
        try await waitUntil("alice's audio still arriving at bob while she holds", within: 10) {
            (await bobCall.statistics().audio?.packetsReceived ?? 0) >= arrived + 75
        }
        #expect(await bobCall.state == .remotelyHeld)
        // Bob sends nothing while held: alice, who holds without telling her own call, may
        // well miss his audio; bob, held, does not call the silence a disruption.
        await #expect(throws: WaitTimedOut.self) {
            _ = try await bobEvents.next("media disrupted while held", within: 0.1) { $0 == .mediaDisrupted }
        }
        let heldUntil = await bobCall.statistics().audio?.totalSamplesPlayed ?? 0
        try await call.signalling.hold(callID: call.id, false)
        _ = try await bobEvents.next("active again") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, bobCall, "after the unhold")

        await call.hangup()
        _ = try await bobEvents.next("the hangup") { if case .state(.done) = $0 { true } else { false } }
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()

        // What bob played while held (a second and a half; the recording has a sample for each
        // one played) is silence; before the hold and after it, alice's 440 Hz.
        let samples = try Recording.samples(bobRecording)
        let rate = 48000
        let held = samples[min(samples.count, heldAt + rate / 5)..<min(samples.count, heldUntil)]
        #expect(held.count >= rate, "\(held.count) samples recorded while held")
        let loudest = held.map { abs(Int($0)) }.max() ?? 0
        #expect(loudest < 300, "bob heard alice while she held him (peak \(loudest))")
        let before = try #require(try Recording.firstToneFrequency(bobRecording))
        #expect(abs(before - 440) <= 5, "bob heard \(before) Hz before the hold")
        let after = Array(samples[min(samples.count, heldUntil + rate / 2)...])
        let afterFrequency = try #require(after.count >= rate / 4 ? after.withUnsafeBufferPointer { Goertzel.dominantFrequency(in: $0, sampleRate: rate) } : nil)
        #expect(abs(afterFrequency - 440) <= 5, "bob heard \(afterFrequency) Hz after the hold")
    }
}
