import Foundation
import Locking
import Synchronization
import Parley

/// The one thread that serves every `--agent-exec` program of the process (docs/architecture.md):
/// it polls their pipes, hands each line the program writes to its bridge, and writes what the
/// bridge has for the program. Woken through an eventfd by the media clocks (once per tick at
/// most, like `WebSocketFeeds.wake`) and by the sessions.
/// Unchecked: the poll set and buffers are touched only by the pump thread; other threads use the atomics and the Lock.
final class ExecAgentPump: @unchecked Sendable {
    static let shared = ExecAgentPump()

    /// A pipe's two ends: the pump polls the first, wakers write to the second.
    private let wakeDescriptor: Int32
    private let wakeWriter: Int32
    private let pending = Atomic<Bool>(false)
    private let added = Lock<[ExecAgentLink]>([])
    // Pump thread only.
    private var links: [ExecAgentLink] = []
    private var message = [UInt8](repeating: 0, count: 16_384)
    /// A line longer than this is refused (the protocol's largest message is a `say`).
    static let maximumLine = 1 << 20

    private init() {
        var ends: [Int32] = [-1, -1]
        if !ExecAgentLink.closeOnExecPipe(&ends) { fatalError("the agent pump could not make its wake-up pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
        let thread = Thread { [unowned self] in
            ThreadName.adopt("parley-exec")
            self.run()
        }
        thread.start()
    }

    func add(_ link: ExecAgentLink) {
        added.withLock { $0.append(link) }
        wakeNow()
    }

    func wake() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeNow()
    }

    private func wakeNow() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    private func run() {
        var descriptors: [pollfd] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        // Allocated once: the pump wakes once per tick of every call's clock.
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            links += added.withLock { list -> [ExecAgentLink] in
                defer { list.removeAll() }
                return list
            }
            pending.store(false, ordering: .releasing)
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
            for link in links {
                fill(link)
                let wantsWrite = link.input >= 0 && !link.writeBuffer.isEmpty
                descriptors.append(pollfd(fd: link.output, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: link.input, events: wantsWrite ? Int16(POLLOUT) : 0, revents: 0))
            }
            _ = poll(&descriptors, nfds_t(descriptors.count), 1000)
            if descriptors[0].revents != 0 { _ = read(wakeDescriptor, &drain, drain.count) }
            var index = 1
            var ended: [Int] = []
            for (position, link) in links.enumerated() {
                let out = descriptors[index], inp = descriptors[index + 1]
                index += 2
                if out.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, !readLines(link, chunk: &chunk) {
                    ended.append(position)
                    continue
                }
                if inp.revents & Int16(POLLERR | POLLHUP) != 0 {
                    link.writeBuffer.removeAll()
                } else if inp.revents & Int16(POLLOUT) != 0 {
                    flush(link)
                }
                if link.drainedForClose { terminate(link, reason: "closed") ; ended.append(position) }
            }
            for position in ended.reversed() { links.remove(at: position) }
        }
    }

    /// Moves what the bridge has for the program into the link's write buffer, one line each.
    private func fill(_ link: ExecAgentLink) {
        guard link.writeBuffer.count < 65_536 else { return }
        var rounds = 0
        while rounds < 64, let next = message.withUnsafeMutableBytes({ link.bridge.nextMessage(into: $0) }) {
            rounds += 1
            link.writeBuffer.append(contentsOf: message[..<next.length])
            link.writeBuffer.append(UInt8(ascii: "\n"))
        }
    }

    private func flush(_ link: ExecAgentLink) {
        let written = link.writeBuffer.withUnsafeBytes { write(link.input, $0.baseAddress, $0.count) }
        if written > 0 { link.writeBuffer.removeFirst(written) }
    }

    /// Reads what the program wrote; false at its end of output.
    private func readLines(_ link: ExecAgentLink, chunk: inout [UInt8]) -> Bool {
        let count = chunk.withUnsafeMutableBytes { read(link.output, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        if count == 0 {
            terminate(link, reason: "the program closed its output")
            return false
        }
        for byte in chunk[..<count] {
            if byte == UInt8(ascii: "\n") {
                if !link.discardingLine, !link.readBuffer.isEmpty {
                    link.readBuffer.withUnsafeBytes { link.bridge.received($0, binary: false) }
                }
                link.readBuffer.removeAll(keepingCapacity: true)
                link.discardingLine = false
            } else if !link.discardingLine {
                link.readBuffer.append(byte)
                if link.readBuffer.count > Self.maximumLine {
                    link.readBuffer.removeAll()
                    link.discardingLine = true
                    link.bridge.send(AgentEvent.error(.invalidField(event: "line", field: "length", reason: "longer than \(Self.maximumLine) bytes")))
                }
            }
        }
        return true
    }

    /// Closes our ends, stops the program if it lingers, reaps it, and reports the close.
    private func terminate(_ link: ExecAgentLink, reason: String) {
        flush(link)
        close(link.input)
        close(link.output)
        let pid = link.process
        DispatchQueue.global().async {
            var status: Int32 = 0
            for _ in 0..<20 {
                if waitpid(pid, &status, WNOHANG) == pid { return link.finish(Self.describe(reason, status: status)) }
                usleep(50_000)
            }
            kill(pid, SIGTERM)
            _ = waitpid(pid, &status, 0)
            link.finish(reason)
        }
    }

    /// The reason with how the program ended, when it ended by itself: the cause a user needs
    /// when a command fails at its start (a typo, a missing interpreter: status 127).
    static func describe(_ reason: String, status: Int32) -> String {
        let signal = status & 0x7f
        if signal == 0 { return "\(reason) (it exited with status \((status >> 8) & 0xff))" }
        return "\(reason) (it was killed by signal \(signal))"
    }
}
