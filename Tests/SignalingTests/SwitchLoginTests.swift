import Signaling
import Switch
import TestSupport
import Testing

@Suite(.leakChecked) struct SwitchLoginTests {
    @Test func passwordLoginBecomesReadyAfterGatewayREGED() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, events) = try await harness.readyClient("alice", "alice-secret")
        #expect(await client.phase == .ready)
        _ = try await events.next("loggedIn") { if case .loggedIn = $0 { true } else { false } }
        _ = try await events.next("clientReady") { if case .clientReady = $0 { true } else { false } }
        _ = try await events.next("REGED") { $0 == .gatewayState("REGED") }
        // Telnyx's sticky-routing id is kept and goes on the reconnect URL.
        let voiceSDKID = try #require(await client.voiceSDKID)
        #expect(await client.connectURL.path.contains("voice_sdk_id=\(voiceSDKID)"))
        #expect(await harness.embedded.onlineLogins == ["alice"])
    }

    @Test func tokenLogin() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, _) = harness.client(.token("bob-token"))
        try await client.connect()
        #expect(await harness.embedded.onlineLogins == ["bob"])
    }

    @Test(arguments: [
        (VertoCredentials.password(login: "alice", password: "wrong"), "Login Incorrect"),
        (VertoCredentials.password(login: "nobody", password: "x"), "Login Incorrect"),
        (VertoCredentials.token("forged"), "JWT token authentication failed"),
    ])
    func loginFailuresAreTypedWithTheServerMessage(credentials: VertoCredentials, message: String) async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, _) = harness.client(credentials)
        await #expect(throws: SignalingError.authenticationFailed(message: message)) { try await client.connect() }
        let error = SignalingError.authenticationFailed(message: message)
        #expect(error.rpcCode == -32001)
        #expect(!error.description.contains("wrong") && !error.description.contains("forged"), "the secret leaked into the message")
    }

    /// REGISTER is ready, as the JS SDK takes it (docs/verto-protocol.md §3.3).
    @Test func gatewayThatRegistersLateIsRetriedUntilREGISTER() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, events) = try await harness.readyClient("slowgw", "pw")
        #expect(await client.phase == .ready)
        let states = await events.all().compactMap { if case .gatewayState(let state) = $0 { state } else { nil } }
        #expect(states == ["TRYING", "REGISTER"])
    }

    @Test func gatewayRetryExhaustionIsGatewayNotRegistered() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, events) = harness.client(.password(login: "nevergw", password: "pw"))
        await #expect(throws: SignalingError.gatewayNotRegistered(lastState: "TRYING")) { try await client.connect() }
        // One request and three retries.
        let states = await events.all().filter { $0 == .gatewayState("TRYING") }
        #expect(states.count == 4)
    }

    @Test(arguments: [
        ("failedgw", SignalingError.gatewayFailed(message: "Gateway registration has failed (FAILED)"), -32004),
        // NOREG is asked again, bounded, as the SDKs retry it (docs/verto-protocol.md §3.3).
        ("noreggw", SignalingError.gatewayNotRegistered(lastState: "NOREG"), -32003),
    ])
    func gatewayFailuresMapToTheReferenceCodes(login: String, expected: SignalingError, code: Int) async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (client, _) = harness.client(.password(login: login, password: "pw"))
        await #expect(throws: expected) { try await client.connect() }
        #expect(expected.rpcCode == code)
    }

    @Test func connectingToNothingFailsWithATypedSocketError() async throws {
        let url = try WebSocketURL(parsing: "ws://127.0.0.1:\(try unusedLoopbackPort())")
        let client = VertoClient(url: url, configuration: VertoConfiguration(credentials: .password(login: "a", password: "b")))
        await #expect { try await client.connect() } throws: { error in
            guard case SignalingError.socket(.connectFailed) = error else { return false }
            return true
        }
    }
}
