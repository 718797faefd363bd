import ArgumentParser
import Foundation
import Logging
import Parley
import SDP

/// `parley engine-profile` (hidden): N calls between legs of this process on loopback (real
/// libnice, DTLS-SRTP, Opus or PCMU, both ends playing a looped, pre-encoded WAV as a bot does),
/// on an engine whose clocks are stepped here rather than by their threads, so that a profiler
/// counts a fixed amount of work however slow it makes the process: `bench/callgrind-engine`
/// runs it under callgrind. Once every call is secured it prints `ready` and waits for a line on
/// standard input; then it steps every clock `seconds * 50` times, each step waiting (bounded)
/// until the packets it sent have arrived, prints `done` with the figures and waits for another
/// line before it ends the calls.
struct EngineProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-profile", abstract: "Step N loopback calls a fixed number of ticks (for bench/callgrind-engine).",
        shouldDisplay: false)

    @Option(help: "Calls (each two legs of this process).")
    var calls = 2

    @Option(help: "Call-seconds to step (50 ticks each).")
    var seconds = 10

    @Option(help: "opus or pcmu.")
    var codec = "opus"

    @Option(help: "A WAV file both ends loop (a whole number of 20 ms frames long).")
    var play: String

    @OptionGroup var engine: EngineFlags

    @Option(help: "Opus encoder complexity 0-10.")
    var opusComplexity = OpusSettings.defaultComplexity

    func validate() throws {
        guard (1...200).contains(calls), (1...600).contains(seconds) else { throw ValidationError("--calls 1-200, --seconds 1-600") }
        guard ["opus", "pcmu"].contains(codec) else { throw ValidationError("--codec is opus or pcmu") }
    }

    func run() async throws {
        let engine = MediaEngine(shards: self.engine.threads ?? MediaEngine.defaultShardCount, manualClocks: true)
        var logger = Logger(label: "parley.profile")
        logger.logLevel = .warning
        var options = MediaOptions()
        options.engine = engine
        options.allowedInterfaces = ["lo"]
        options.ipv6 = false
        options.iceMode = .vanilla(collectionTimeout: .seconds(3))
        options.opusComplexity = opusComplexity
        let name = codec == "opus" ? "opus" : "PCMU"
        let rate = codec == "opus" ? 48000 : 8000
        options.capabilities = AudioCapabilities(codecs: AudioCapabilities.standard.codecs.filter {
            $0.name == name || ($0.name == "telephone-event" && $0.clockRate == rate)
        })
        options.source = .wav(path: play, loop: true)
        options.sink = .null

        // Real-time steps while the calls set up (DTLS retransmits on ticks).
        // Unstructured: cancelled and awaited below, once the calls are up.
        let setupClock = Task {
            while !Task.isCancelled {
                for shard in engine.shards { shard.clock.step() }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        var legs: [MediaLeg] = []
        for _ in 0..<calls {
            let caller = try MediaLeg(role: .controlling, options: options, logger: logger)
            let callee = try MediaLeg(role: .controlled, options: options, logger: logger)
            legs += [caller, callee]
            async let secured: Void = Self.waitSecured(caller, callee)
            try await caller.applyAnswer(try await callee.answer(try await caller.makeOffer()))
            try await secured
        }
        // Let setup's stragglers (candidates, first RTCP) pass before the measured steps.
        try await Task.sleep(for: .seconds(1))
        setupClock.cancel()
        _ = await setupClock.value
        print(#"{"event":"ready","calls":\#(calls),"shards":\#(engine.shardCount)}"#)
        fflush(nil)
        _ = readLine()

        let watched = legs[legs.count - 1]
        let start = await watched.statistics().audio?.packetsReceived ?? 0
        var waits = 0
        for step in 1...(seconds * 50) {
            for shard in engine.shards { shard.clock.step() }
            // The last leg hears its peer's packet of this step: by then the others have too,
            // or nearly (the bound keeps a lost packet from stopping the run).
            for _ in 0..<200 {
                if (await watched.statistics().audio?.packetsReceived ?? 0) - start >= step { break }
                waits += 1
                try await Task.sleep(for: .microseconds(250))
            }
        }
        var sent = 0
        var received = 0
        var concealed = 0
        for leg in legs {
            let audio = await leg.statistics().audio
            sent += audio?.packetsSent ?? 0
            received += audio?.packetsReceived ?? 0
            concealed += audio?.concealedSamples ?? 0
        }
        print(#"{"event":"done","steps":\#(seconds * 50),"legs":\#(legs.count),"packetsSent":\#(sent),"packetsReceived":\#(received),"concealedSamples":\#(concealed),"waits":\#(waits)}"#)
        fflush(nil)
        _ = readLine()
        for leg in legs { await leg.stop() }
    }

    private static func waitSecured(_ caller: MediaLeg, _ callee: MediaLeg) async throws {
        for leg in [caller, callee] {
            let deadline = ContinuousClock.now + .seconds(30)
            for await event in leg.events {
                if case .secured = event { break }
                if case .failed(let error) = event { throw error }
                if ContinuousClock.now > deadline { throw ValidationError("a leg did not secure in 30 s") }
            }
        }
    }
}
