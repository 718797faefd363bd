import Foundation
import Media
import Parley
import Signaling
import TestSupport
import Testing

/// A Janus `Call` against the real Janus in a network namespace: EchoTest returns our tone with no
/// loss, AudioBridge lets two participants hear each other, Janus' errors arrive typed.
@Suite(.serialized, .tags(.namespaces, .realPeer, .slow), .needsRoot) struct JanusCallInteropTests {
    private func withJanus(_ body: (JanusServer) async throws -> Void) async throws {
        let janus = try await JanusServer.start()
        do {
            try await body(janus)
        } catch {
            await janus.stop()
            throw error
        }
        await janus.stop()
    }

    @Test func echoTestReturnsOurToneWithoutLoss() async throws {
        try await withJanus { janus in
            let recording = InteropMedia.temporaryFile("echo.wav")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let call = try await Call.janus(url: janus.url, destination: .echoTest, media: InteropMedia.options(interface: janus.hostInterface, tone: 440, record: recording),
                                                    logger: InteropMedia.logger)
            let events = EventRecorder(call.events)
            _ = try await events.next("active", within: 15) { $0 == .state(.active) }
            // Five seconds of tone out and back.
            try await waitUntil("five seconds of echoed audio", within: 15) { await call.statistics().audio?.packetsReceived ?? 0 >= 250 }
            try await waitUntil("Janus' reception report", within: 5) { await call.statistics().audio?.remotePacketsLost != nil }
            // The EchoTest answers Opus alone, without telephone-event: DTMF is refused, typed.
            await #expect { try await call.sendDTMF("4") } throws: { ($0 as? ParleyError)?.kind == .negotiation }
            let statistics = try #require(await call.statistics().audio)
            InteropMedia.report("Janus EchoTest", statistics)
            await call.hangup()
            let reason = await call.waitUntilDone()
            #expect(reason.localStatus == .endedByLocalUser)
            #expect(await call.failure == nil)

            #expect(statistics.codec.lowercased() == "opus")
            #expect(statistics.packetsLost == 0, "RTCP-derived loss of the echo we receive")
            #expect(statistics.remotePacketsLost == 0, "Janus' receiver reports: loss of our stream")
            let heard = try #require(try Recording.firstToneFrequency(recording, seconds: 4), "the echo is silent")
            #expect(abs(heard - 440) <= 5, "the echo's dominant frequency is \(heard) Hz")
            print("[interop] Janus EchoTest: echo's dominant frequency \(String(format: "%.1f", heard)) Hz")
        }
    }

    @Test func anICERestartOnTheSameHandleMovesTheEchoToANewPair() async throws {
        try await withJanus { janus in
            let call = try await Call.janus(url: janus.url, destination: .echoTest, media: InteropMedia.options(interface: janus.hostInterface, tone: 440, record: nil),
                                                    logger: InteropMedia.logger)
            let events = EventRecorder(call.events)
            _ = try await events.next("active", within: 15) { $0 == .state(.active) }
            try await waitUntil("a second of echo", within: 15) { await call.statistics().audio?.packetsReceived ?? 0 >= 50 }
            let before = try #require(await call.statistics().candidatePair)

            try await call.restartMedia()
            _ = try await events.next("recovered", within: 10) { $0 == .recovered(.iceRestart) }
            try await waitUntil("a new selected pair", within: 10) {
                guard let pair = await call.statistics().candidatePair else { return false }
                return pair.localPort != before.localPort
            }
            let received = await call.statistics().audio?.packetsReceived ?? 0
            try await waitUntil("the echo goes on after the restart", within: 10) { await call.statistics().audio?.packetsReceived ?? 0 >= received + 50 }
            #expect(await call.state == .active)
            await call.hangup()
            #expect(await call.waitUntilDone().localStatus == .endedByLocalUser)
        }
    }

    @Test func twoAudioBridgeParticipantsHearEachOther() async throws {
        try await withJanus { janus in
            let aliceRecording = InteropMedia.temporaryFile("alice.wav")
            let bobRecording = InteropMedia.temporaryFile("bob.wav")
            defer {
                try? FileManager.default.removeItem(atPath: aliceRecording)
                try? FileManager.default.removeItem(atPath: bobRecording)
            }
            // Room 4321 is not configured: the first participant creates it.
            let room = 4321
            let alice = try await Call.janus(url: janus.url, destination: .audioBridge(room: room), display: "alice",
                                                        media: InteropMedia.options(interface: janus.hostInterface, tone: 440, record: aliceRecording),
                                                        logger: InteropMedia.logger)
            let bob = try await Call.janus(url: janus.url, destination: .audioBridge(room: room), display: "bob",
                                                      media: InteropMedia.options(interface: janus.hostInterface, tone: 880, record: bobRecording),
                                                      logger: InteropMedia.logger)
            let aliceEvents = EventRecorder(alice.events)
            let bobEvents = EventRecorder(bob.events)
            _ = try await aliceEvents.next("alice active", within: 15) { $0 == .state(.active) }
            _ = try await bobEvents.next("bob active", within: 15) { $0 == .state(.active) }
            #expect(await bob.participants.values.contains("alice"))
            try await waitUntil("alice learns that bob joined") { await alice.participants.values.contains("bob") }
            try await waitUntil("three seconds of the mix on both sides", within: 15) {
                let received = (await alice.statistics().audio?.packetsReceived ?? 0, await bob.statistics().audio?.packetsReceived ?? 0)
                return received.0 >= 150 && received.1 >= 150
            }
            InteropMedia.report("AudioBridge alice", await alice.statistics().audio)
            InteropMedia.report("AudioBridge bob", await bob.statistics().audio)
            await alice.hangup()
            await bob.hangup()

            // Each hears the other, not itself: the mix leaves out a participant's own audio.
            let aliceHeard = try #require(try Recording.firstToneFrequency(aliceRecording, seconds: 1), "alice heard nothing")
            let bobHeard = try #require(try Recording.firstToneFrequency(bobRecording, seconds: 1), "bob heard nothing")
            #expect(abs(aliceHeard - 880) <= 5, "alice heard \(aliceHeard) Hz")
            #expect(abs(bobHeard - 440) <= 5, "bob heard \(bobHeard) Hz")
            print("[interop] AudioBridge: alice heard \(String(format: "%.1f", aliceHeard)) Hz, bob heard \(String(format: "%.1f", bobHeard)) Hz")
        }
    }

    @Test func janusRefusalsAreTypedErrors() async throws {
        try await withJanus { janus in
            let options = InteropMedia.options(interface: janus.hostInterface, tone: nil, record: nil)
            // Room 5678 (scripts/interop/janus-netns) has a PIN we do not give: AudioBridge's
            // "missing mandatory element" (483).
            do {
                _ = try await Call.janus(url: janus.url, destination: .audioBridge(room: 5678), media: options, logger: InteropMedia.logger)
                Issue.record("joining a room with a PIN, without the PIN, succeeded")
            } catch let error as ParleyError {
                #expect(error.kind == .janus)
                #expect(error.serverCode == 483, "\(error)")
                #expect(error.message.contains("pin"))
                print("[interop] AudioBridge refusal: \(error.code) \(error.serverCode ?? 0): \(error.message)")
            }
        }
        // Nothing listens there: a socket error, not a hang.
        let nowhere = try WebSocketURL(parsing: "ws://127.0.0.1:9")
        await #expect { _ = try await Call.janus(url: nowhere, destination: .echoTest, media: InteropMedia.options(interface: "lo", tone: nil, record: nil)) }
            throws: { ($0 as? ParleyError)?.kind == .socket }
    }

    @Test func destinationsParse() throws {
        #expect(try JanusDestination(parsing: "echotest") == .echoTest)
        #expect(try JanusDestination(parsing: "audiobridge:1234") == .audioBridge(room: 1234))
        #expect(JanusDestination.audioBridge(room: 7).plugin == "janus.plugin.audiobridge")
        for bad in ["", "echo", "audiobridge:", "audiobridge:-1", "audiobridge:room"] {
            #expect(throws: ParleyError.self) { try JanusDestination(parsing: bad) }
        }
    }
}
