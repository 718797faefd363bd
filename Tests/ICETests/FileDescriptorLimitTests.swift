import Foundation
@testable import ICE
import Testing

struct FileDescriptorLimitTests {
    @Test func countsTheDescriptorsThisProcessHolds() throws {
        let held = (0..<200).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        try #require(held.allSatisfy { $0 >= 0 })
        let holding = try #require(FileDescriptorLimit.openCount())
        held.forEach { close($0) }
        let released = try #require(FileDescriptorLimit.openCount())
        #expect(holding >= 200 + 3, "stdin, stdout, stderr and ours")
        // Other suites open and close a few meanwhile, never 150.
        #expect(holding - released > 150, "\(holding) open, then \(released)")
    }

    @Test func exhaustionIsNamedWithTheLimitAndTheRemedy() throws {
        let limit = try #require(FileDescriptorLimit.softLimit)
        let error = try #require(FileDescriptorLimit.exhausted(errno: EMFILE))
        if case .outOfFileDescriptors(_, let reported) = error { #expect(reported == limit) } else { Issue.record("not out-of-file-descriptors: \(error)") }
        #expect(error.code == "out-of-file-descriptors")
        #expect(error.description.contains("limit \(limit)") && error.description.contains("ulimit -n"))
        #expect(FileDescriptorLimit.exhausted(errno: ENFILE) != nil)
        // Another failure, far from the limit, is not blamed on it.
        #expect(FileDescriptorLimit.exhausted(errno: EACCES) == nil)
        #expect(throws: Never.self) { try FileDescriptorLimit.checkRoomForCall() }
    }

    @Test func messageWithoutACountStillNamesTheLimit() {
        let error = ICEError.outOfFileDescriptors(open: nil, limit: 64)
        #expect(error.description == "out of file descriptors (limit 64): raise ulimit -n (and its hard limit, ulimit -Hn)")
        #expect(ICEError.outOfFileDescriptors(open: 60, limit: 64).description.hasPrefix("out of file descriptors (60 open, limit 64)"))
    }
}
