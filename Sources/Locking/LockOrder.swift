#if canImport(Glibc)
import Glibc
#endif

/// A lock's place in the one order Parley's locks may be nested in (docs/architecture.md, "Lock
/// order"): while a thread holds a ranked lock it may take only a lock of a higher rank. A debug
/// build checks every `withLock` of a ranked lock against the ranks its thread holds; a release
/// build stores the rank and checks nothing.
public struct LockRank: Sendable, Comparable, CustomStringConvertible {
    public let level: Int
    /// The lock, as docs/architecture.md's lock order names it.
    public let name: StaticString

    public init(level: Int, name: StaticString) {
        self.level = level
        self.name = name
    }

    public static func < (lhs: LockRank, rhs: LockRank) -> Bool { lhs.level < rhs.level }
    public static func == (lhs: LockRank, rhs: LockRank) -> Bool { lhs.level == rhs.level }
    public var description: String { "\(name) (rank \(level))" }
}

extension LockRank {
    /// `MediaSession.clockLock`: a session's clock side, held while a tick pulls its source and
    /// pushes to its sink.
    public static let mediaSessionClock = LockRank(level: 10, name: "MediaSession.clockLock")
    /// `AudioSinkSwitch.lock`: the current sink and its listeners, held while a played frame is
    /// pushed; a listener may stop the prompt under way (a bot's barge-in: `SpeechOnsetDetector`
    /// → `BotRun.playUntilInterrupted` → `AudioSourceSwitch.stopPrompt`), so the source switch
    /// ranks after it.
    public static let audioSinkSwitch = LockRank(level: 20, name: "AudioSinkSwitch.lock")
    /// `AudioSourceSwitch.lock`: the current source, held while the frame to send is pulled.
    public static let audioSourceSwitch = LockRank(level: 25, name: "AudioSourceSwitch.lock")
    /// `AgentBridge.lock`: an agent call's queues, taken by the switch's current source or sink.
    public static let agentBridge = LockRank(level: 30, name: "AgentBridge.lock")
}

/// The debug build's check of the lock order: a stack of the ranks the current thread holds.
public enum LockOrder {
    /// Called by `Lock.withLock` before it takes a ranked lock.
    public static func willTake(_ rank: LockRank) {
        let held = HeldRanks.current
        if let top = held.ranks.last, rank <= top {
            report("lock order broken: taking \(rank) while holding \(top) (docs/architecture.md, \"Lock order\")")
        }
        held.ranks.append(rank)
    }

    /// Called by `Lock.withLock` after it gave a ranked lock up.
    public static func didRelease(_ rank: LockRank) {
        let held = HeldRanks.current
        if let index = held.ranks.lastIndex(of: rank) { held.ranks.remove(at: index) }
    }

    /// The ranks the current thread holds, innermost last.
    public static var heldByThisThread: [LockRank] { HeldRanks.current.ranks }

    /// Runs `body` with a broken order reported to `handler` instead of stopping the process:
    /// for a test of the order itself.
    public static func reportingViolations<Result>(to handler: @escaping @Sendable (String) -> Void, _ body: () throws -> Result) rethrows -> Result {
        let previous = violationHandler.withLock { current in
            defer { current = handler }
            return current
        }
        defer { violationHandler.withLock { $0 = previous } }
        return try body()
    }

    private static let violationHandler = Lock<(@Sendable (String) -> Void)?>(nil)

    private static func report(_ message: String) {
        if let handler = violationHandler.withLock({ $0 }) {
            handler(message)
        } else {
            assertionFailure(message)
        }
    }
}

/// One thread's held ranks, kept in a pthread key so that each thread has its own.
/// Unchecked: only its own thread reaches an instance, through the thread's key.
private final class HeldRanks: @unchecked Sendable {
    var ranks: [LockRank] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { stored in
            if let stored { Unmanaged<HeldRanks>.fromOpaque(stored).release() }
        }
        return key
    }()

    static var current: HeldRanks {
        if let stored = pthread_getspecific(key) { return Unmanaged<HeldRanks>.fromOpaque(stored).takeUnretainedValue() }
        let held = HeldRanks()
        pthread_setspecific(key, Unmanaged.passRetained(held).toOpaque())
        return held
    }
}
