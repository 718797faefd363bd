import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import Testing

/// A test trait for suites that start engines, clients or switches: runs each test with a place
/// to register its cleanups (`afterTest`), awaits them when the test ends (returned or threw),
/// then waits, with a bound, until the process holds no descriptor and no thread it did not hold
/// before the test, and fails the test naming what stayed (descriptor targets, thread names).
public struct LeakCheck: TestTrait, SuiteTrait, TestScoping {
    /// Threads that may outlive a test, by name: they live as long as the process by design.
    let lifetimeThreads: Set<String>
    /// How long what a test let go may take to close (a GLib source released on its loop's next
    /// turn, a thread's last instructions after it was told to end).
    let settle: Duration

    public var isRecursive: Bool { true }

    /// Per test case (a parameterised test's cases each start their own engines), not around a
    /// whole suite.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await LeakCheck.warmUpOnce()
        let baseline = ProcessResources.now()
        let cleanups = TestCleanups()
        do {
            try await TestCleanups.$current.withValue(cleanups) { try await function() }
        } catch {
            await cleanups.run()
            throw error
        }
        await cleanups.run()
        let leaked = await leaks(since: baseline)
        if !leaked.isEmpty {
            Issue.record("\(test.name) left behind what it started: \(leaked.summary)")
        }
    }

    /// What is still open `settle` after the cleanups, beyond `baseline` and what may stay;
    /// empty as soon as everything has gone.
    public func leaks(since baseline: ProcessResources) async -> ProcessResources {
        let deadline = ContinuousClock.now + settle
        while true {
            var added = ProcessResources.now().added(since: baseline)
            added.threads = added.threads.filter { !mayStay(thread: $0.value) }
            added.descriptors = added.descriptors.filter { !LeakCheck.mayStay(descriptor: $0.value) }
            if added.isEmpty || ContinuousClock.now >= deadline { return added }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func mayStay(thread name: String) -> Bool {
        lifetimeThreads.contains(name) || LeakCheck.libraryThreads.contains(where: { name.contains($0) })
    }

    /// Threads of the libraries under the tests, which come and go on their own schedule.
    static let libraryThreads: [String] = [
        // Dispatch's workers, which also carry Swift concurrency's pool, are named after their
        // queue (`com.apple.root.default-qos`; the kernel keeps the last 15 characters).
        "-qos",
        // GLib's shared thread pool (GTask, GResolver), whose idle workers exit when GLib decides.
        "pool-",
        // GLib's worker context thread, started once by the first GTask and never stopped.
        "gmain",
    ]

    /// Descriptors that may outlive a test, by target.
    static func mayStay(descriptor target: String) -> Bool {
        // Wake-up and timer plumbing of event loops (CFRunLoop's, GLib's and libwebsockets'
        // contexts, made once per process): a loop a test leaks shows as its thread instead.
        if target.hasPrefix("anon_inode:") { return true }
        // Opened once by OpenSSL and NSS for the process.
        if target == "/dev/urandom" { return true }
        // A stopped server's listening socket: WebSocketService destroys its vhost, yet
        // libwebsockets 4.1 leaves the socket listening. Found by this check, not yet fixed:
        // docs/architecture.md, "File descriptors".
        if target.contains(" tcp LISTEN ") { return true }
        // A socket neither bound nor connected when read: a connect under way, which cannot be
        // told apart from a reconnect attempt of a client another test left behind.
        if target.hasSuffix(" unbound or not IP") { return true }
        // Files of /proc that the checks of the tests running beside this one are reading.
        if target.hasPrefix("/proc/") { return true }
        return false
    }

    /// Every test awaits the one warm-up: a test that took its baseline while another ran it
    /// would count the warm-up's run loop and socket pair as its own.
    private static let warmUp = Task { await warmUpNow() }

    static func warmUpOnce() async { await warmUp.value }

    /// Foundation makes a run loop (an epoll, a timer, a wake-up and a loopback socket pair)
    /// for the first `Process` it runs, and FoundationNetworking a socket pair for the first
    /// `URLSession` request, and keeps them for the process's life: made here, before any
    /// baseline, they are not counted against the first test that runs a program or fetches.
    private static func warmUpNow() async {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        if (try? process.run()) != nil {
            for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        }
        // Port 9 (discard) on loopback: refused at once, which is all the warm-up needs.
        let session = URLSession(configuration: .ephemeral)
        if let url = URL(string: "http://127.0.0.1:9/") { _ = try? await session.data(from: url) }
        session.invalidateAndCancel()
    }
}

extension Trait where Self == LeakCheck {
    /// Awaited cleanups and a descriptor and thread leak check around each test.
    /// `lifetimeThreads`: names of threads made once per process (a shared loop), allowed to stay.
    public static func leakChecked(lifetimeThreads: Set<String> = LeakCheck.processThreads, settle: Duration = .seconds(5)) -> Self {
        LeakCheck(lifetimeThreads: lifetimeThreads, settle: settle)
    }

    public static var leakChecked: Self { .leakChecked() }
}

extension LeakCheck {
    /// Parley's threads that live as long as the process (docs/architecture.md, "The threads"),
    /// made by the first test that needs them and never stopped, as they name themselves
    /// (`ThreadName`). A media engine's shards live as long as the process too, so the further
    /// shards' threads of an engine a test makes stay (`parley-net-N`, `parley-clock-N`).
    public static let processThreads: Set<String> = Set([
        "parley-network", "parley-clock", "parley-signal", "parley-exec", "parley-priority", "parley-audio",
    ]).union((1...64).flatMap { ["parley-net-\($0)", "parley-clock-\($0)"] })
}

/// The cleanups one test registered, awaited last first when it ends.
public final class TestCleanups: Sendable {
    @TaskLocal static var current: TestCleanups?
    private let registered = Lock<[@Sendable () async -> Void]>([])

    func add(_ cleanup: @escaping @Sendable () async -> Void) {
        registered.withLock { $0.append(cleanup) }
    }

    func run() async {
        let cleanups = registered.withLock { registered in
            let taken = registered
            registered = []
            return taken
        }
        for cleanup in cleanups.reversed() { await cleanup() }
    }
}

/// Registers `cleanup` to be awaited when the test ends, whether it returns or throws: the
/// awaited form of `defer { Task { await x.stop() } }`. Needs `.leakChecked` on the test or
/// its suite; without it the test fails, since nothing would run the cleanup.
public func afterTest(_ cleanup: @escaping @Sendable () async -> Void) {
    guard let cleanups = TestCleanups.current else {
        Issue.record("afterTest needs the .leakChecked trait on the test or its suite: nothing would await this cleanup")
        return
    }
    cleanups.add(cleanup)
}
