import Foundation
import SDP
import Signaling
import TestSupport
import Testing

/// Signalling against the real Janus: session, attach, offer/answer, trickle, hangup, detach,
/// destroy, and Janus' errors as typed errors.
@Suite(.serialized, .tags(.namespaces, .realPeer, .slow), .needsRoot) struct JanusInteropTests {
    private func withJanus(_ body: (JanusNamespace, JanusClient, EventRecorder<JanusEvent>) async throws -> Void) async throws {
        let janus = try await JanusNamespace.start()
        do {
            let client = JanusClient(url: janus.url, keepaliveInterval: .seconds(1))
            let events = EventRecorder(client.events)
            try await client.connect()
            try await body(janus, client, events)
        } catch {
            await janus.stop()
            throw error
        }
        await janus.stop()
    }

    private func hostSide(of url: WebSocketURL) -> String {
        var parts = url.host.split(separator: ".")
        parts[3] = "1"
        return parts.joined(separator: ".")
    }

    @Test func echoTestOfferAnswerTrickleHangup() async throws {
        try await withJanus { janus, client, events in
            #expect(await client.sessionID != nil)
            let handle = try await client.attach(plugin: "janus.plugin.echotest")
            let offer = try JanusNamespace.audioOffer(hostAddress: hostSide(of: janus.url))
            let result = try await client.message(handle: handle, body: ["audio": true, "video": false], jsep: JSEP(type: "offer", sdp: offer))
            #expect(result.plugin == "janus.plugin.echotest")
            #expect(result.data["result"] == "ok")
            let answer = try #require(result.jsep)
            #expect(answer.type == "answer")
            // Janus' answer is real SDP our engine reads: DTLS, ICE credentials, an audio section.
            let parsed = try SDPParser().parse(answer.sdp)
            let audio = try #require(parsed.media.first)
            #expect(audio.kind == "audio")
            #expect(audio.attributes.first(Fingerprint.self) != nil || parsed.attributes.first(Fingerprint.self) != nil)

            try await client.trickle(handle: handle, candidate: "candidate:2 1 udp 2122194687 \(hostSide(of: janus.url)) 40002 typ host")
            try await client.trickle(handle: handle, candidate: nil)
            // Keepalives (every second here) are acknowledged by Janus, and the session stays.
            _ = try await events.next("keepalive ack", within: 5) { $0 == .keepaliveAcknowledged }
            _ = try await events.next("second keepalive ack", within: 5) { $0 == .keepaliveAcknowledged }
            #expect(await client.sessionID != nil)
            try await client.hangup(handle: handle)
            let hangup = try await events.next("hangup event") { if case .hangup = $0 { true } else { false } }
            #expect(hangup == .hangup(handle: handle, reason: "Janus API"))
            try await client.detach(handle: handle)
            try await client.destroy()
        }
    }

    @Test func audioBridgeJoinAndConfigureWithOffer() async throws {
        try await withJanus { janus, client, _ in
            let handle = try await client.attach(plugin: "janus.plugin.audiobridge")
            let joined = try await client.message(handle: handle, body: ["request": "join", "room": 1234, "display": "parley"])
            #expect(joined.data["audiobridge"] == "joined")
            #expect(joined.data["room"] == 1234)
            let offer = try JanusNamespace.audioOffer(hostAddress: hostSide(of: janus.url))
            let configured = try await client.message(handle: handle, body: ["request": "configure", "muted": false], jsep: JSEP(type: "offer", sdp: offer))
            #expect(configured.jsep?.type == "answer")
            let second = try await client.attach(plugin: "janus.plugin.audiobridge")
            await #expect(throws: SignalingError.janus(code: 485, reason: "No such room (9999)")) {
                _ = try await client.message(handle: second, body: ["request": "join", "room": 9999])
            }
            await #expect(throws: SignalingError.janus(code: 491, reason: "Already in a room (use changeroom to join another one)")) {
                _ = try await client.message(handle: handle, body: ["request": "join", "room": 1234])
            }
            try await client.destroy()
        }
    }

    @Test func janusErrorsSurfaceAsTypedErrors() async throws {
        try await withJanus { _, client, _ in
            await #expect(throws: SignalingError.janus(code: 460, reason: "No such plugin 'janus.plugin.nonexistent'")) {
                _ = try await client.attach(plugin: "janus.plugin.nonexistent")
            }
            let handle = try await client.attach(plugin: "janus.plugin.echotest")
            await #expect { _ = try await client.message(handle: handle, body: ["audio": true], jsep: JSEP(type: "offer", sdp: "v=0\r\nthis is not sdp\r\n")) }
                throws: { error in
                    guard case SignalingError.janus(let code, _) = error else { return false }
                    return code == 465
                }
            await #expect { _ = try await client.detach(handle: 424242) } throws: { error in
                guard case SignalingError.janus(let code, _) = error else { return false }
                return code == 459
            }
            try await client.destroy()
            await #expect(throws: SignalingError.self) { _ = try await client.attach(plugin: "janus.plugin.echotest") }
        }
    }
}
