import Media
import Switch
@testable import Parley
import TestSupport
import Testing

/// `Call.firstPacketArrival()` and `firstAudibleSound()`: resolved by the media session's report
/// of the moment, not by polling statistics, and nil once a call ends without it (what
/// `parley load` and `parley answer --report-first-audio` time setup with).
@Suite(.serialized) struct FirstMediaTests {
    @Test func theFirstPacketIsReportedWhenItArrivedAndTheFirstAudibleFrameWhenWatched() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "tone:440", record: "null")
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "tone:880", record: "null")
        let bobClientEvents = EventRecorder(bob.events)
        try await alice.connect()
        try await bob.connect()
        let dialed = ContinuousClock.now
        let call = try await alice.dial("bob")
        let arrival = Task { await call.firstPacketArrival() }
        let offered = try await bobClientEvents.next("an incoming call") { if case .incomingCall = $0 { true } else { false } }
        let incoming = try #require(offered.incomingCall)
        var media = try CallThroughSwitchTests.configuration("bob", at: embedded.url, play: "tone:880").media
        media.watchesFirstAudible = true
        try await incoming.answer(media: media)
        // Bounds every wait below: a report that never comes ends the calls, and the waits get nil.
        let watchdog = Task { [bobCall = incoming.call] in
            guard (try? await Task.sleep(for: .seconds(20))) != nil else { return }
            await call.hangup()
            await bobCall.hangup()
        }
        defer { watchdog.cancel() }

        var shown: ContinuousClock.Instant?
        try await waitUntil("alice receives a packet") {
            guard (await call.statistics().audio?.packetsReceived ?? 0) > 0 else { return false }
            shown = ContinuousClock.now
            return true
        }
        let first = try #require(await arrival.value)
        #expect(first > dialed)
        #expect(first <= (try #require(shown)))
        let bobFirst = try #require(await incoming.call.firstPacketArrival())
        let heard = try #require(await incoming.call.firstAudibleSound())
        #expect(heard.at >= bobFirst)
        #expect(heard.packetsReceived >= 1)

        // Alice did not watch for audible sound: whoever awaits it learns nothing came once the call ends.
        let aliceHeard = Task { await call.firstAudibleSound() }
        await call.hangup()
        #expect(await aliceHeard.value == nil)
        #expect(await call.firstPacketArrival() == first)
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }

    @Test func aCallThatEndsWithoutMediaResolvesNil() async throws {
        let signalling = CallRaceTests.RecordingSignalling(holdsOpen: false)
        let call = CallRaceTests.call(.outgoing, signalling)
        try await call.dial(destination: "bob", options: DialOptions())
        let packet = Task { await call.firstPacketArrival() }
        let audible = Task { await call.firstAudibleSound() }
        await call.hangup()
        #expect(await packet.value == nil)
        #expect(await audible.value == nil)
        #expect(await call.firstPacketArrival() == nil)
    }
}
