import Foundation
import Locking
import Media
import Signaling
import Parley

/// One agent call's audio and control between the media clock and the program's link
/// (docs/agents.md, docs/architecture.md "Agent calls"). Three sides touch it:
///
/// - the call's media clock thread, once per tick: `listen(to:)` appends what was played out to
///   the uplink queue and `read(into:)` takes what the program sent from the downlink queue;
/// - the link's thread (the WebSocket service thread, or the exec pump): `received` parses what
///   the program sends and `nextMessage` hands out what waits for it;
/// - the call's `AgentSession` actor: control events out (`send`), control commands in
///   (`commands`).
///
/// Both queues are bounded and allocated once (at hello); a full queue drops its oldest audio and
/// counts it, so a slow program never blocks the clock. The lock is private to this call and
/// taken for a copy, never across a call out of it.
/// Unchecked: fields behind one Lock<()> taken for a copy, per tick on the media clock and per message from the link.
final class AgentBridge: AudioSource, ReceivedAudioListener, WebSocketFeed, @unchecked Sendable {
    let commands: AsyncStream<AgentCommand>
    private let commandSink: AsyncStream<AgentCommand>.Continuation
    private let wake: @Sendable () -> Void
    /// What the link can carry: exec links are text only.
    private let binaryAllowed: Bool
    /// A platform dialect's messages (Dialects/); nil for Parley's own protocol.
    let wire: (any AgentWire)?
    private let lock = Lock((), rank: .agentBridge)

    // Guarded by `lock`.
    private var rate = 0
    private var encoding = AgentAudioEncoding.binary
    private var frameSamples = 0
    private var uplink = SampleQueue(capacity: 1)
    private var downlink = SampleQueue(capacity: 1)
    private var control: [String] = []
    private var controlDropped = 0
    private var marks: [(position: Int, name: String)] = []
    private var streaming = false
    private var closed = false
    private var clearRequested = false
    private var lastUplinkAppend = ContinuousClock.now
    private var downlinkIdleArrival: ContinuousClock.Instant?
    private var counters = AgentCounters()
    private var lastRefusal: AgentProtocolError?
    /// What arrived for the downlink behind a `say` still being synthesised, in order: audio and
    /// marks wait until the speech before them is queued (a mark after a say is echoed after it).
    private var waiting: [Waiting] = []
    private var nextTicket = 0

    private enum Waiting {
        case speech(ticket: Int, samples: [Int16]?)
        case audio([Int16])
        case mark(String)
    }

    // Link thread only.
    private var helloSeen = false
    private var linkSamples: UnsafeMutableBufferPointer<Int16> = .allocate(capacity: 8192)

    // Media clock thread only (made by `attach` before the clock sees this object).
    private var attached = false
    /// Only when the call's audio runs at another rate than the program's (a G.711 call toward a
    /// 16 or 24 kHz program); an Opus call runs at the program's rate and needs none.
    private var uplinkResampler: StreamResampler?
    private var downlinkResampler: StreamResampler?
    private var clockScratch: UnsafeMutableBufferPointer<Int16> = .allocate(capacity: 0)
    private var staging: UnsafeMutableBufferPointer<Int16> = .allocate(capacity: 0)
    private var stagedCount = 0
    private var clockFrameSamples = 1

    /// Uplink: one second of audio; downlink: twenty (a program may send speech faster than real time).
    static let uplinkSeconds = 1
    static let downlinkSeconds = 20
    static let maximumControlMessages = 256

    init(binaryAllowed: Bool, wire: (any AgentWire)? = nil, wake: @escaping @Sendable () -> Void) {
        (commands, commandSink) = AsyncStream.makeStream(of: AgentCommand.self)
        self.binaryAllowed = binaryAllowed
        self.wire = wire
        self.wake = wake
        // A platform's bot says no hello: its audio format is the platform's, and the platform speaks first.
        if let wire {
            helloSeen = true
            configure(rate: wire.sampleRate, encoding: .binary, frameSamples: wire.frameSamples)
            if let connected = wire.connected() { control.append(connected) }
        }
    }

    deinit {
        linkSamples.deallocate()
        clockScratch.deallocate()
        staging.deallocate()
    }

    // MARK: The session's side

    var sampleRate: Int { lock.withLock { _ in rate } }
    var audioEncoding: AgentAudioEncoding { lock.withLock { _ in encoding } }

    /// Queues a control event for the program.
    func send(_ text: String) {
        lock.withLock { _ in
            if control.count >= Self.maximumControlMessages {
                control.removeFirst()
                controlDropped += 1
            }
            control.append(text)
        }
        wake()
    }

    /// Readies the clock side for a call whose audio runs at `codecRate`; audio flows once
    /// `startStreaming`. At the program's own rate (Opus coded at it, `audioRate`) frames are
    /// copied straight between the call and the queues; otherwise they are resampled.
    func attach(codecRate: Int) throws(AudioError) {
        let agentRate = sampleRate
        guard codecRate != agentRate else {
            attached = true
            return
        }
        uplinkResampler = try StreamResampler(from: codecRate, to: agentRate)
        downlinkResampler = try StreamResampler(from: agentRate, to: codecRate)
        attached = true
        let codecFrame = codecRate / 50
        clockFrameSamples = agentRate / 50
        // The empty buffers made at init are allocations too (AgentFuzz's leak check found them).
        clockScratch.deallocate()
        clockScratch = .allocate(capacity: max(codecFrame, agentRate / 50) * 2 + 64)
        clockScratch.initialize(repeating: 0)
        staging.deallocate()
        staging = .allocate(capacity: codecFrame * 3 + 64)
        staging.initialize(repeating: 0)
    }

    /// `start` is queued before this, so the program hears of the call before its audio.
    func startStreaming(start: String) {
        lock.withLock { _ in
            control.append(start)
            streaming = true
        }
        wake()
    }

    /// Queues synthesised speech in the place its `say` held (marks and clear apply to it); empty
    /// samples when synthesis failed.
    func finishSpeech(ticket: Int, samples: [Int16]) {
        lock.withLock { _ in
            guard let index = waiting.firstIndex(where: { if case .speech(ticket, _) = $0 { true } else { false } }) else { return }
            waiting[index] = .speech(ticket: ticket, samples: samples)
            releaseWaitingLocked()
        }
        wake()
    }

    /// Moves what no longer waits on speech into the downlink and the marks. Under the lock.
    private func releaseWaitingLocked() {
        while let first = waiting.first {
            switch first {
            case .speech(_, nil): return
            case .speech(_, let samples?): appendLocked(samples)
            case .audio(let samples): appendLocked(samples)
            case .mark(let name): marks.append((downlink.appended, name))
            }
            waiting.removeFirst()
        }
    }

    private func appendLocked(_ samples: [Int16]) {
        if downlink.count == 0 { downlinkIdleArrival = .now }
        samples.withUnsafeBufferPointer { downlink.append($0) }
    }

    /// The call is over: nothing more is read or played; the link may still drain `end`.
    func close() {
        lock.withLock { _ in closed = true }
        commandSink.finish()
    }

    func counterSnapshot() -> AgentCounters {
        lock.withLock { _ in
            var snapshot = counters
            snapshot.droppedToProgram = uplink.dropped / max(rate / 50, 1)
            snapshot.droppedFromProgram = downlink.dropped / max(rate / 50, 1)
            snapshot.controlDropped = controlDropped
            return snapshot
        }
    }

    // MARK: Media clock thread

    func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard attached else { return }
        var samples = frame
        if let uplinkResampler {
            let produced = uplinkResampler.process(frame, into: clockScratch)
            samples = UnsafeBufferPointer(rebasing: clockScratch[..<produced])
        }
        let ready = lock.withLock { _ -> Bool in
            guard streaming, !closed else { return false }
            uplink.append(samples)
            lastUplinkAppend = .now
            return uplink.count >= frameSamples
        }
        if ready { wake() }
    }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard attached else {
            frame.update(repeating: 0)
            return true
        }
        guard let downlinkResampler else {
            // The call runs at the program's rate: the queue's samples are the frame.
            let (taken, reached, open, _) = takeDownlink(into: frame)
            for index in taken..<frame.count { frame[index] = 0 }
            if reached { wake() }
            return open
        }
        var markReached = false
        var open = true
        // At most a few rounds: each moves one program frame (20 ms) through the resampler.
        var rounds = 0
        while stagedCount < frame.count, rounds < 4 {
            rounds += 1
            let chunk = UnsafeMutableBufferPointer(rebasing: clockScratch[..<clockFrameSamples])
            let (taken, reached, isOpen, cleared) = takeDownlink(into: chunk)
            if cleared { stagedCount = 0 }
            open = isOpen
            markReached = markReached || reached
            guard taken > 0 else { break }
            stagedCount += downlinkResampler.process(UnsafeBufferPointer(rebasing: chunk[..<taken]),
                                                     into: UnsafeMutableBufferPointer(rebasing: staging[stagedCount...]))
        }
        let played = min(stagedCount, frame.count)
        for index in 0..<played { frame[index] = staging[index] }
        for index in played..<frame.count { frame[index] = 0 }
        for index in played..<stagedCount { staging[index - played] = staging[index] }
        stagedCount -= played
        if markReached { wake() }
        return open
    }

    /// Up to `chunk.count` samples of the program's audio, under the lock: how many, whether a
    /// mark's audio has now played, whether the call is still open, whether a clear came since.
    private func takeDownlink(into chunk: UnsafeMutableBufferPointer<Int16>) -> (taken: Int, markReached: Bool, open: Bool, cleared: Bool) {
        lock.withLock { _ in
            let cleared = clearRequested
            clearRequested = false
            guard !closed, frameSamples > 0 else { return (0, false, !closed, cleared) }
            let taken = downlink.read(into: chunk)
            if taken > 0, let arrival = downlinkIdleArrival {
                counters.noteProgramToWire(ContinuousClock.now - arrival)
                downlinkIdleArrival = nil
            }
            if taken > 0 { counters.framesFromProgram += 1 }
            return (taken, marks.first.map { $0.position <= downlink.removed } ?? false, true, cleared)
        }
    }

    // MARK: The link's thread

    var hasPending: Bool {
        lock.withLock { _ in
            !control.isEmpty || (marks.first.map { $0.position <= downlink.removed } ?? false)
                || (streaming && frameSamples > 0 && uplink.count >= frameSamples)
        }
    }

    func nextMessage(into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool)? {
        enum Next { case text(String), audio(Int, AgentAudioEncoding) }
        let next = lock.withLock { _ -> Next? in
            if !control.isEmpty { return .text(control.removeFirst()) }
            if let mark = marks.first, mark.position <= downlink.removed {
                marks.removeFirst()
                counters.marksEchoed += 1
                return .text(wire?.markPlayed(mark.name) ?? AgentEvent.json(["event": "mark", "name": mark.name]))
            }
            guard streaming, frameSamples > 0, uplink.count >= frameSamples else { return nil }
            let taken = uplink.read(into: UnsafeMutableBufferPointer(rebasing: linkSamples[..<frameSamples]))
            counters.framesToProgram += 1
            counters.noteWireToProgram(ContinuousClock.now - lastUplinkAppend, backlogSamples: uplink.count, rate: rate)
            return .audio(taken, encoding)
        }
        switch next {
        case nil: return nil
        case .text(let text):
            var utf8 = Array(text.utf8)
            if utf8.count > buffer.count { utf8 = Array(AgentEvent.error(.notNow(event: "event", reason: "too large to send")).utf8) }
            buffer.copyBytes(from: utf8)
            return (utf8.count, false)
        case .audio(let count, let encoding):
            let samples = UnsafeBufferPointer(rebasing: linkSamples[..<count])
            if let wire { return wire.media(samples, into: buffer) }
            if encoding == .binary {
                for (index, sample) in samples.enumerated() { buffer.storeBytes(of: sample.littleEndian, toByteOffset: index * 2, as: Int16.self) }
                return (count * 2, true)
            }
            return (AgentMediaText.write(samples, into: buffer), false)
        }
    }

    func received(_ message: UnsafeRawBufferPointer, binary: Bool) {
        if let wire { return receivedFromBot(message, binary: binary, wire: wire) }
        if binary {
            guard helloSeen else { return refuse(.helloFirst) }
            guard message.count % 2 == 0 else {
                return refuse(.invalidField(event: "binary audio", field: "length", reason: "must be whole 16-bit samples (an even number of bytes)"))
            }
            var offset = 0
            while offset < message.count {
                let count = min((message.count - offset) / 2, linkSamples.count)
                for index in 0..<count {
                    linkSamples[index] = Int16(littleEndian: message.loadUnaligned(fromByteOffset: offset + index * 2, as: Int16.self))
                }
                appendDownlink(UnsafeBufferPointer(rebasing: linkSamples[..<count]))
                offset += count * 2
            }
            return
        }
        // A `media` event, the message a text program sends 50 times a second, skips the decoder.
        if helloSeen, let count = AgentMediaText.read(message, into: linkSamples) {
            return appendDownlink(UnsafeBufferPointer(rebasing: linkSamples[..<count]))
        }
        let command: AgentCommand
        do {
            command = try AgentMessageParser.parse(message)
        } catch {
            refuse(error)
            if case .unsupportedVersion(let version) = error, !helloSeen { commandSink.yield(.versionRefused(version)) }
            return
        }
        if case .hello(_, let rate, let audio) = command {
            guard !helloSeen else { return refuse(.notNow(event: "hello", reason: "hello was already sent")) }
            guard audio == .base64 || binaryAllowed else {
                return refuse(.invalidField(event: "hello", field: "audio", reason: "must be base64 on --agent-exec (a text stream)"))
            }
            helloSeen = true
            configure(rate: rate, encoding: audio, frameSamples: rate / 50)
            commandSink.yield(command)
            return
        }
        guard helloSeen else { return refuse(.helloFirst) }
        switch command {
        case .media(let payload): payload.withUnsafeBufferPointer { appendDownlink($0) }
        case .mark(let name): queueMark(name)
        case .say(let text, let voice):
            let ticket = lock.withLock { _ -> Int in
                nextTicket += 1
                waiting.append(.speech(ticket: nextTicket, samples: nil))
                return nextTicket
            }
            commandSink.yield(.speak(text: text, voice: voice, ticket: ticket))
        case .clear: clearDownlink()
        default: commandSink.yield(command)
        }
    }

    /// A platform bot's message: audio, a mark, a clear; anything else is refused and counted,
    /// never answered (the platforms send no error events), and the call goes on.
    private func receivedFromBot(_ message: UnsafeRawBufferPointer, binary: Bool, wire: any AgentWire) {
        do {
            switch try wire.read(message, binary: binary, into: linkSamples) {
            case .audio(let count): appendDownlink(UnsafeBufferPointer(rebasing: linkSamples[..<count]))
            case .mark(let name): queueMark(name)
            case .clear:
                clearDownlink()
                if let cleared = wire.cleared() { send(cleared) }
            case .ignored: break
            }
        } catch {
            lock.withLock { _ in
                counters.errorsSent += 1
                lastRefusal = error
            }
        }
    }

    /// Echoed once the audio queued before it has played.
    private func queueMark(_ name: String) {
        let reached = lock.withLock { _ -> Bool in
            guard waiting.isEmpty else {
                waiting.append(.mark(name))
                return false
            }
            marks.append((downlink.appended, name))
            return downlink.count == 0
        }
        if reached { wake() }
    }

    private func clearDownlink() {
        lock.withLock { _ in
            _ = downlink.clear()
            // Speech still being made is dropped with the rest; marks behind it are passed.
            for case .mark(let name) in waiting { marks.append((downlink.appended, name)) }
            waiting.removeAll()
            clearRequested = true
            downlinkIdleArrival = nil
            counters.clears += 1
        }
        wake()
    }

    /// The last message a platform bot sent that was refused, for the `agent` event's note.
    var lastBotRefusal: AgentProtocolError? { lock.withLock { _ in lastRefusal } }

    private func configure(rate: Int, encoding: AgentAudioEncoding, frameSamples: Int) {
        let uplink = SampleQueue(capacity: rate * Self.uplinkSeconds)
        let downlink = SampleQueue(capacity: rate * Self.downlinkSeconds)
        lock.withLock { _ in
            self.rate = rate
            self.encoding = encoding
            self.frameSamples = frameSamples
            self.uplink = uplink
            self.downlink = downlink
        }
    }

    private func appendDownlink(_ samples: UnsafeBufferPointer<Int16>) {
        lock.withLock { _ in
            guard waiting.isEmpty else { return waiting.append(.audio(Array(samples))) }
            if downlink.count == 0 { downlinkIdleArrival = .now }
            downlink.append(samples)
        }
    }

    private func refuse(_ error: AgentProtocolError) {
        lock.withLock { _ in counters.errorsSent += 1 }
        send(AgentEvent.error(error))
    }
}

/// What an agent call counted, for `--json` and metrics.
public struct AgentCounters: Sendable, Equatable {
    public var framesToProgram = 0
    public var framesFromProgram = 0
    /// Frames dropped, oldest first, because the queue toward the program (or from it) was full.
    public var droppedToProgram = 0
    public var droppedFromProgram = 0
    public var controlDropped = 0
    public var marksEchoed = 0
    public var clears = 0
    public var errorsSent = 0
    /// From a frame played out by the jitter buffer to its write to the program.
    public var wireToProgramMaxMs = 0.0
    public var wireToProgramTotalMs = 0.0
    /// From program audio arriving at an idle queue to the tick that sends it.
    public var programToWireMaxMs = 0.0
    public var programToWireTotalMs = 0.0
    public var programToWireCount = 0

    public var wireToProgramMeanMs: Double { framesToProgram == 0 ? 0 : wireToProgramTotalMs / Double(framesToProgram) }
    public var programToWireMeanMs: Double { programToWireCount == 0 ? 0 : programToWireTotalMs / Double(programToWireCount) }

    mutating func noteWireToProgram(_ age: Duration, backlogSamples: Int, rate: Int) {
        // The frame just taken is older than the last append by what still waits behind it.
        let milliseconds = age.inMilliseconds + Double(backlogSamples) * 1000 / Double(max(rate, 1))
        wireToProgramMaxMs = max(wireToProgramMaxMs, milliseconds)
        wireToProgramTotalMs += milliseconds
    }

    mutating func noteProgramToWire(_ wait: Duration) {
        let milliseconds = wait.inMilliseconds
        programToWireMaxMs = max(programToWireMaxMs, milliseconds)
        programToWireTotalMs += milliseconds
        programToWireCount += 1
    }
}

extension Duration {
    var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
