import Foundation
import Locking
import TestSupport
import Testing

/// The leak check the engine suites run after each test (`.leakChecked`): what a test leaves
/// open is named, and what it closed in time is not.
@Suite struct LeakCheckTests {
    @Test func aSocketLeftOpenIsNamedAndOneClosedIsNot() async throws {
        let check: LeakCheck = .leakChecked(settle: .milliseconds(300))
        let baseline = ProcessResources.now()
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        let leaked = await check.leaks(since: baseline)
        #expect(leaked.descriptors[descriptor]?.contains("udp 127.0.0.1:") == true, "\(leaked.summary)")
        close(descriptor)
        #expect(await check.leaks(since: baseline).descriptors[descriptor] == nil)
    }

    @Test func aThreadLeftRunningIsNamedUntilItEnds() async throws {
        let check: LeakCheck = .leakChecked(settle: .seconds(2))
        let baseline = ProcessResources.now()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            ThreadIdentity.nameCurrentThread("parley-test-leak")
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
