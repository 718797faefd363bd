@testable import CLI
import ArgumentParser
import Testing

/// The commands that hold calls or clients for hours go through one process setup
/// (Sources/CLI/LongRunningCommand.swift): descriptor limit, signalling priority, memory trimming.
@Suite struct LongRunningCommandTests {
    @Test func everyCommandThatHoldsCallsGoesThroughTheSetup() {
        let longRunning = ParleyCommand.configuration.subcommands
            .filter { $0 is any LongRunningCommand.Type }
            .map { $0._commandName }
        #expect(Set(longRunning) == ["call", "answer", "load", "switch"])
    }
}
