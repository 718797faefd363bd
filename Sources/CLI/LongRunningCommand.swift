import ArgumentParser
import ICE
import Media
import Parley

/// A command that holds calls or clients for a long time (`call`, `answer`, `load`, `switch`).
/// Conforming gives it the process setup such a command needs before its first socket, so a new
/// command cannot forget a step: it writes `runLongRunning()` and gets `run()` from here.
protocol LongRunningCommand: AsyncParsableCommand {
    func runLongRunning() async throws
}

extension LongRunningCommand {
    func run() async throws {
        LongRunningProcess.prepare()
        try await runLongRunning()
    }
}

/// The steps themselves, once per process whatever the command.
enum LongRunningProcess {
    static func prepare() {
        // Every call and every client's WebSocket holds descriptors: the soft limit (1024 on a
        // stock login) up to the hard one.
        FileDescriptorLimit.raiseSoftLimit()
        // Signalling ahead of every normal thread, behind media (SignallingPriority).
        SignallingPriority.keep()
        // Gives freed heap memory back to the system while calls run for hours
        // (docs/performance.md, "Soak").
        MemoryTrimmer.process.start()
    }
}
