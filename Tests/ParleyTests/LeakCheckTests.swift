import Foundation
import Locking
import TestSupport
import Testing

/// The leak check the engine suites run after each test (`.leakChecked`): what a test leaves
/// open is named, and what it closed in time is not.
@Suite struct LeakCheckTests {
    @Test func aDescriptorLeftOpenIsNamedAndOneClosedIsNot() async throws {
        let check: LeakCheck = .leakChecked(settle: .milliseconds(300))
        let baseline = ProcessResources.now()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let leaked = await check.leaks(since: baseline)
        #expect(leaked.descriptors[ends[0]]?.hasPrefix("pipe:[") == true, "\(leaked.summary)")
        #expect(leaked.descriptors[ends[1]]?.hasPrefix("pipe:[") == true, "\(leaked.summary)")
        close(ends[0])
        close(ends[1])
        #expect(await check.leaks(since: baseline).descriptors.isEmpty)
    }

    @Test func aThreadLeftRunningIsNamedUntilItEnds() async throws {
        let check: LeakCheck = .leakChecked(settle: .seconds(2))
        let baseline = ProcessResources.now()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            ThreadName.adopt("parley-test-leak")
            started.signal()
            release.wait()
        }
        thread.start()
        started.wait()
        let leaked = await check.leaks(since: baseline)
        #expect(leaked.threads.values.contains("parley-test-lea"), "\(leaked.summary)")
        release.signal()
        #expect(await check.leaks(since: baseline).threads.isEmpty)
    }
}
