import Foundation
import Media
import Synchronization
import Testing

/// Blocks the first call that reaches it until released (or, so that a failing test never
/// hangs, until 10 s have passed).
final class Gate: Sendable {
    private let closed: Bool
    private let passed = Atomic<Bool>(false)
    private let entered = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    init(closed: Bool) { self.closed = closed }

    func pass() {
        guard closed, !passed.exchange(true, ordering: .relaxed) else { return }
        entered.signal()
        _ = opened.wait(timeout: .now() + 10)
    }

    func waitUntilEntered(seconds: Double) -> Bool { entered.wait(timeout: .now() + seconds) == .success }
    func open() { opened.signal() }
}

/// A transport that sends nothing and may hold its first send at a gate.
final class GatedTransport: MediaTransport {
    let gate: Gate
    init(gate: Gate) { self.gate = gate }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        gate.pass()
        return true
    }
}

/// A sink that keeps nothing and may hold its first write at a gate.
final class GatedSink: AudioSink, Sendable {
    let gate: Gate
    init(gate: Gate) { self.gate = gate }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) { gate.pass() }
    func close() {}
}

/// A PCMU session on SDES keys, ticked by a manual clock on a thread of the test's, and the
/// far end's SRTP packets for it, protected up front.
struct ThreadedSession {
    let session: MediaSession
    let clock = MediaClock(manual: true)
    let packets: [[UInt8]]

    init(transport: any MediaTransport, sink: any AudioSink, packetCount: Int) throws {
        let ours = [UInt8](repeating: 0x11, count: 30)
        let theirs = [UInt8](repeating: 0x22, count: 30)
        let material = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: ours, remoteMasterKey: theirs)
        session = try MediaSession(
            configuration: MediaSessionConfiguration(codec: .pcmu()), security: .sdes(material), transport: transport, source: SilenceSource(), sink: sink)
        let far = try SRTPContext(profile: .aes128CMHMACSHA1_80, masterKey: theirs, direction: .outbound)
        packets = try (1...packetCount).map { index in
            var packet = rtpPacket(sequence: UInt16(index))
            withUnsafeBytes(of: (UInt32(index) * 160).bigEndian) { packet.replaceSubrange(4..<8, with: $0) }
            let length = packet.count
            var buffer = packet + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
            let protected = try buffer.withUnsafeMutableBytes { try far.protectRTP($0, length: length) }
            return Array(buffer.prefix(protected))
        }
        session.start(on: clock)
    }

    /// Hands every packet to the session on a thread of its own; the semaphore is signalled
    /// once all were received.
    func receiveOnAnotherThread() -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread { [session, packets] in
            for packet in packets { _ = packet.withUnsafeBytes { session.receive($0) } }
            done.signal()
        }.start()
        return done
    }

    /// Steps the clock `ticks` times on a thread of its own.
    func tickOnAnotherThread(_ ticks: Int) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread { [clock] in
            for _ in 0..<ticks { clock.step() }
            done.signal()
        }.start()
        return done
    }
}

/// The network thread's receive path and the clock thread's tick share only the jitter buffer
/// and the reception statistics (docs/performance.md, "The session's two locks"). These put both
/// threads on one session at once: run them under `swift test --sanitize=thread` too, and read
/// its reports as docs/hardening.md says.
@Suite(.serialized) struct MediaSessionThreadTests {
    enum Stage: String, CaseIterable, CustomTestStringConvertible {
        /// SRTP protect and the transport's send.
        case send
        /// Playout: decode and the sink's write.
        case play
        var testDescription: String { rawValue }
    }

    /// While the clock thread is held inside a tick (in the transport's send, or in the sink's
    /// write), packets for the same session are still received, unprotected and buffered: the
    /// network thread does not wait for the tick.
    @Test(arguments: Stage.allCases)
    func receivingDoesNotWaitForATickInProgress(stage: Stage) throws {
        let gate = Gate(closed: true)
        let transport = GatedTransport(gate: stage == .send ? gate : Gate(closed: false))
        let sink = GatedSink(gate: stage == .play ? gate : Gate(closed: false))
        let setup = try ThreadedSession(transport: transport, sink: sink, packetCount: 20)
        let ticked = setup.tickOnAnotherThread(1)
        try #require(gate.waitUntilEntered(seconds: 5))

        let received = setup.receiveOnAnotherThread()
        let receivedDuringTick = received.wait(timeout: .now() + 5) == .success
        gate.open()
        #expect(ticked.wait(timeout: .now() + 5) == .success)
        if !receivedDuringTick { _ = received.wait(timeout: .now() + 5) }
        #expect(receivedDuringTick, "the network thread waited for the tick")
        let statistics = setup.session.statistics()
        #expect(statistics.packetsReceived == 20)
        #expect(statistics.srtpAuthenticationFailures == 0)
        setup.session.stop(clock: setup.clock)
    }

    /// Packets received on one thread while another steps the clock: each is counted once, none
    /// is lost or doubled whatever the interleaving, and playout advances one tick per step.
    @Test func packetsReceivedWhileTicksRunAreEachCountedOnce() throws {
        let open = Gate(closed: false)
        let setup = try ThreadedSession(transport: GatedTransport(gate: open), sink: GatedSink(gate: open), packetCount: 400)
        let ticks = 300
        let ticked = setup.tickOnAnotherThread(ticks)
        let received = setup.receiveOnAnotherThread()
        #expect(ticked.wait(timeout: .now() + 20) == .success)
        #expect(received.wait(timeout: .now() + 20) == .success)
        let statistics = setup.session.statistics()
        #expect(statistics.packetsReceived == 400)
        #expect(statistics.packetsLost == 0)
        #expect(statistics.duplicatePackets == 0)
        #expect(statistics.totalSamplesPlayed == ticks * 160)
        #expect(statistics.packetsSent == ticks)
        setup.session.stop(clock: setup.clock)
    }
}
