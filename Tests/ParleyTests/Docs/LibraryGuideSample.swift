// The sample in docs/calls.md, "Using the library", compiled here so the guide cannot rot. Its
// imports are part of it: `import Parley` is the library of calls, `import Drivers` adds the bot
// (docs/architecture.md, "Modules").
// docs-sample:begin
import Foundation
import Drivers
import Parley

func placeACall() async throws {
    var configuration = VoiceClientConfiguration(
        server: try WebSocketURL(parsing: "wss://rtc.example.com"),
        credentials: .password(login: "alice", password: ProcessInfo.processInfo.environment["PARLEY_PASSWORD"] ?? ""))
    configuration.media.source = try AudioSourceSpec("tone:440")
    configuration.media.sink = try AudioSinkSpec("call.wav")
    configuration.media.iceServers = [try ICEServer(url: "stun:stun.example.com")]
    configuration.media.dtmfMode = .rfc4733         // or .info (a Verto info per digit, as the Telnyx SDKs), .both

    let client = VoiceClient(configuration: configuration)
    try await client.connect()                      // logged in, gateway registered

    var options = DialOptions()
    options.headers = [CustomHeader(name: "X-Account", value: "42")]
    let call = try await client.dial("+15551234567", options: options)

    for await event in call.events {
        switch event {
        case .state(.active):
            try await call.sendDTMF("1234#")        // as dtmfMode says
        case .state(.done(let reason)):
            print("ended:", reason, await call.statistics().audio?.packetsLost ?? 0)
        case .dtmf(let digit):
            print("far end pressed", digit)
        default:
            break
        }
    }
    await client.disconnect()
}

func answerCalls(with client: VoiceClient, script: BotScript, logger: Logger) async {
    for await event in client.events {
        guard case .incomingCall(let incoming) = event else { continue }
        Task {
            try await incoming.answer()
            let outcome = await incoming.call.runBot(BotRunner(script: script), logger: logger)
            print(outcome.steps, outcome.ending)
        }
    }
}
// docs-sample:end
