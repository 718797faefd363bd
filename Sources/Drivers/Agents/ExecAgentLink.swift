import Foundation
import Locking
import Parley

/// The program as a process Parley starts per call (`--agent-exec COMMAND`, run by /bin/sh -c):
/// the protocol as newline-delimited JSON on its standard input and output, audio as base64
/// `media` events (docs/agents.md, "Over standard input and output"). Its pipes are served by the
/// process's one `ExecAgentPump` thread, not a thread per call; its standard error is Parley's.
/// Unchecked: its descriptors are read and written only by the pump thread; the rest is behind `state`'s Lock.
final class ExecAgentLink: AgentLink, @unchecked Sendable {
    let bridge: AgentBridge
    let process: pid_t
    /// Our ends of the program's standard input (we write) and output (we read); non-blocking.
    let input: Int32
    let output: Int32
    private let state = Lock(State())
    private let (closures, closureSink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))

    struct State {
        var closing = false
        var finished = false
    }

    // Pump thread only.
    var readBuffer: [UInt8] = []
    var writeBuffer: [UInt8] = []
    var discardingLine = false

    init(command: String, bridge: AgentBridge) throws(ParleyError) {
        self.bridge = bridge
        var toProgram: [Int32] = [0, 0]
        var fromProgram: [Int32] = [0, 0]
        guard Self.closeOnExecPipe(&toProgram) else { throw ParleyError(kind: .agent, message: "cannot make a pipe for the agent: \(String(cString: strerror(errno)))") }
        guard Self.closeOnExecPipe(&fromProgram) else {
            Glibc.close(toProgram[0]); Glibc.close(toProgram[1])
            throw ParleyError(kind: .agent, message: "cannot make a pipe for the agent: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toProgram[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromProgram[1], 1)
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The program runs at normal scheduling: the spawning thread may be real-time
        // (SignallingPriority), and a child inherits that, so a busy program would outrank
        // every normal thread of the machine and this process's packet reading.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var normal = sched_param(sched_priority: 0)
        posix_spawnattr_setschedpolicy(&attributes, SCHED_OTHER)
        posix_spawnattr_setschedparam(&attributes, &normal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSCHEDULER))
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        Glibc.close(toProgram[0])
        Glibc.close(fromProgram[1])
        guard status == 0 else {
            Glibc.close(toProgram[1]); Glibc.close(fromProgram[0])
            throw ParleyError(kind: .agent, message: "cannot start the agent command: \(String(cString: strerror(status)))")
        }
        process = pid
        input = toProgram[1]
        output = fromProgram[0]
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        ExecAgentPump.shared.add(self)
    }

    /// A pipe neither end of which a later program inherits (Glibc does not export pipe2).
    static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// A process is up once started: `onOpen` is not needed (its hello says it is ready).
    func closed(onOpen: @escaping @Sendable () async -> Void) async -> String {
        for await reason in closures { return reason }
        return "closed"
    }

    func close(reason: String) {
        state.withLock { $0.closing = true }
        ExecAgentPump.shared.wake()
    }

    /// True once asked to close and nothing waits to be written: the pump closes the input then.
    var drainedForClose: Bool {
        state.withLock { $0.closing } && writeBuffer.isEmpty && !bridge.hasPending
    }

    /// The pump saw the program's output end (or gave up on it): reports it once.
    func finish(_ reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        guard first else { return }
        closureSink.yield(reason)
        closureSink.finish()
    }
}
