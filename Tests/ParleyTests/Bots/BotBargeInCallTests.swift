import Foundation
import Logging
import Media
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// Barge-in on a real call through the embedded switch (ICE, DTLS-SRTP, Opus on loopback): the
/// caller speaks over the bot's welcome, and the caller's own stereo recording tells how long
/// the welcome went on after the speech began.
@Suite struct BotBargeInCallTests {
    static let welcomeHertz = 1000.0
    /// When the caller starts to speak, in its own audio (the bot's welcome has begun by then).
    static let speechStart = 3.0

    /// What the caller sends: silence, then a sentence spoken by espeak-ng.
    private static func callerAudio(at path: String) throws {
        let rate = 48000
        let speech = try SpeechSynthesizer.shared.audio(Speech("Hello, I would like to speak to someone in sales, please."), sampleRate: rate)
        let samples = [Int16](repeating: 0, count: Int(speechStart * Double(rate))) + speech + [Int16](repeating: 0, count: 2 * rate)
        let recorder = try WAVRecorder(path: path, sampleRate: rate)
        samples.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        recorder.close()
    }

    private static func configuration(_ login: String, url: WebSocketURL, play: String, record: String) throws -> VoiceClientConfiguration {
        var configuration = VoiceClientConfiguration(server: url, credentials: .password(login: login, password: login + "-secret"))
        configuration.media.allowedInterfaces = ["lo"]
        configuration.media.ipv6 = false
        configuration.media.source = try AudioSourceSpec(play)
        configuration.media.sink = try AudioSinkSpec(record)
        configuration.reconnection.watchesNetwork = false
        return configuration
    }

    @Test func theCallersSpeechStopsTheWelcomeWithin400Milliseconds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-barge-in-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let callerSource = directory.appendingPathComponent("caller.wav").path
        let callerRecording = directory.appendingPathComponent("heard.wav").path
        try Self.callerAudio(at: callerSource)

        let embedded = try await EmbeddedSwitch.start(
            listen: WebSocketURL(parsing: "ws://127.0.0.1:0"),
            configuration: SwitchConfiguration(accounts: [
                SwitchAccount(login: "alice", password: "alice-secret"), SwitchAccount(login: "bot", password: "bot-secret"),
            ]))
        defer { Task { await embedded.stop() } }
        let caller = VoiceClient(configuration: try Self.configuration("alice", url: embedded.url, play: callerSource, record: "stereo:" + callerRecording))
        let bot = VoiceClient(configuration: try Self.configuration("bot", url: embedded.url, play: "silence", record: "null"))
        let botEvents = EventRecorder(bot.events)
        try await caller.connect()
        try await bot.connect()
        let script = try BotScript.parse(text: """
            start: welcome
            steps:
              welcome:
                type: play
                prompt: tone:\(Int(Self.welcomeHertz))/10s
                barge_in: true
                next: after
              after:
                type: hangup
                prompt: silence/500ms
            """, format: .yaml, baseDirectory: directory.path)

        let call = try await caller.dial("bot")
        let offered = try await botEvents.next("an incoming call") { if case .incomingCall = $0 { true } else { false } }
        let incoming = try #require(matching(offered) { if case .incomingCall(let incoming) = $0 { incoming } else { nil } })
        try await incoming.answer()
        let logger = Logger(label: "parley.bots.test") { _ in SwiftLogNoOpLogHandler() }
        let outcome = try await withTimeout(seconds: 20) { await incoming.call.runBot(BotRunner(script: script), logger: logger) }
        #expect(outcome.steps == ["welcome", "after"])
        _ = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
        await caller.disconnect()
        await bot.disconnect()

        let heard = try StereoRecording(path: callerRecording)
        let onset = try #require(heard.firstFrame(where: { heard.rms(left: $0) > 0.01 }), "the caller's speech is in its recording")
        let welcome = heard.frames.filter { heard.tonePower(Self.welcomeHertz, right: $0) > 0.1 }
        let lastWelcome = try #require(welcome.last, "the caller heard the welcome")
        #expect(welcome.first! < onset - 10, "the welcome began before the caller spoke")
        let latency = Double(lastWelcome + 1 - onset) * StereoRecording.frameSeconds
        print("[barge-in] the welcome stopped \(Int(latency * 1000)) ms after the caller began to speak (heard by the caller)")
        #expect(latency > 0 && latency < 0.4, "stopped \(latency) s after speech onset")
    }
}

/// A 16-bit stereo WAV (local left, remote right), in 20 ms frames.
struct StereoRecording {
    static let frameSeconds = 0.02
    let rate: Int
    let left: [Int16]
    let right: [Int16]

    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        rate = Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16
        let samples = stride(from: 44, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        left = stride(from: 0, to: samples.count - 1, by: 2).map { samples[$0] }
        right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
    }

    var frameSize: Int { Int(Double(rate) * Self.frameSeconds) }
    var frames: Range<Int> { 0..<(left.count / frameSize) }

    func firstFrame(where test: (Int) -> Bool) -> Int? { frames.first(where: test) }

    /// Root mean square of a frame of the local channel, 1 is full scale.
    func rms(left frame: Int) -> Double {
        let part = left[(frame * frameSize)..<((frame + 1) * frameSize)]
        return (part.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(part.count)).squareRoot() / 32768
    }

    /// The share of a remote frame's energy at `hertz` (near 1 for a pure tone, near 0 without it).
    func tonePower(_ hertz: Double, right frame: Int) -> Double {
        let part = Array(right[(frame * frameSize)..<((frame + 1) * frameSize)])
        let energy = part.reduce(0.0) { $0 + Double($1) * Double($1) }
        guard energy > Double(part.count) * 100 else { return 0 }
        let power = part.withUnsafeBufferPointer { Goertzel.power(of: hertz, in: $0, sampleRate: rate) }
        return 2 * power / (Double(part.count) * energy)
    }
}
