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

    /// A socket that existed before the test and is connected during it is not the test's; a
    /// socket the test opened is, however it reads.
    @Test func aSocketIsTheTestsOnlyWhenItIsANewSocket() async throws {
        let check: LeakCheck = .leakChecked(settle: .milliseconds(300))
        let (existing, port) = try boundLoopbackSocket(SOCK_DGRAM)
        defer { close(existing) }
        let baseline = ProcessResources.now()
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_addr.s_addr = inet_addr("127.0.0.1")
        peer.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(existing, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(connected == 0)
        #expect(await check.leaks(since: baseline).descriptors.isEmpty)
        let (opened, _) = try boundLoopbackSocket(SOCK_DGRAM)
        let leaked = await check.leaks(since: baseline)
        close(opened)
        #expect(leaked.descriptors[opened]?.contains("udp 127.0.0.1:") == true, "\(leaked.summary)")
        #expect(ProcessResources.identity("socket:[42] udp 127.0.0.1:1 -> 0.0.0.0:0") == ProcessResources.identity("socket:[42] unbound or not IP"))
    }

    /// The socket table is read whole: with more sockets than fit one page of it (about 30),
    /// every one still reads as itself, not as "unbound or not IP", which the check allows.
    @Test func everySocketOfAFullTableReadsAsItself() throws {
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        for _ in 0..<100 { opened.append(try boundLoopbackSocket(SOCK_DGRAM).descriptor) }
        let descriptors = ProcessResources.now().descriptors
        let unread = opened.filter { descriptors[$0]?.contains(" udp 127.0.0.1:") != true }
        #expect(unread.isEmpty, "\(unread.count) of 100 sockets not in the table read")
    }
}
