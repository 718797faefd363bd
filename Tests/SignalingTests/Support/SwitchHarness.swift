import Foundation
import Signaling
import Switch
import TestSupport

/// A switch on loopback with a few accounts, and clients that log in to it.
struct SwitchHarness {
    let embedded: EmbeddedSwitch

    static let offer = try! String(contentsOfFile: fixture("sdp/valid/chrome-audio-offer.sdp"), encoding: .utf8)
    static let answer = try! String(contentsOfFile: fixture("sdp/valid/freeswitch-webrtc-audio-answer.sdp"), encoding: .utf8)

    static func start(_ adjust: (inout SwitchConfiguration) -> Void = { _ in }) async throws -> SwitchHarness {
        var configuration = SwitchConfiguration(accounts: [
            SwitchAccount(login: "alice", password: "alice-secret"),
            SwitchAccount(login: "bob", password: "bob-secret", tokens: ["bob-token"]),
            SwitchAccount(login: "slowgw", password: "pw", gatewayStates: ["TRYING", "REGISTER", "REGED"]),
            SwitchAccount(login: "nevergw", password: "pw", gatewayStates: ["TRYING"]),
            SwitchAccount(login: "failedgw", password: "pw", gatewayStates: ["FAILED"]),
            SwitchAccount(login: "noreggw", password: "pw", gatewayStates: ["NOREG"]),
        ])
        adjust(&configuration)
        let embedded = try await EmbeddedSwitch.start(listen: WebSocketURL(parsing: "ws://127.0.0.1:0"), configuration: configuration)
        return SwitchHarness(embedded: embedded)
    }

    func client(_ credentials: VertoCredentials, sessid: String? = nil, _ adjust: (inout VertoConfiguration) -> Void = { _ in })
        -> (VertoClient, EventRecorder<VertoEvent>)
    {
        var configuration = VertoConfiguration(credentials: credentials)
        configuration.gatewayRetryInterval = .milliseconds(200)
        adjust(&configuration)
        let client = VertoClient(url: embedded.url, configuration: configuration, sessid: sessid)
        // Left connected, it would try to reconnect to the stopped switch during later tests.
        afterTest { await client.disconnect() }
        return (client, EventRecorder(client.events))
    }

    /// A client that has logged in and is ready.
    func readyClient(_ login: String, _ password: String, sessid: String? = nil) async throws -> (VertoClient, EventRecorder<VertoEvent>) {
        let (client, events) = client(.password(login: login, password: password), sessid: sessid)
        try await client.connect()
        return (client, events)
    }
}

func fixture(_ path: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures").appendingPathComponent(path).path
}
