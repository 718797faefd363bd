import Foundation
@testable import ICE
import TestSupport
import Testing

@Suite(.serialized, .tags(.namespaces), .needsRoot) struct NetworkMonitorTests {
    @Test func addressesAddedAndRemovedOnAVethAreReported() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let a = try PeerProcess("A", in: bed, host: "a")
        defer { a.stop() }
        let mark = a.mark
        a.send(["op": "monitor"])
        _ = try a.waitFor("monitoring", after: mark, timeout: .seconds(5))
        let device = bed.interface("a")
        try bed.exec("a", ["ip", "addr", "add", "10.9.0.7/24", "dev", device])
        _ = try a.waitFor("network", after: mark, timeout: .seconds(5)) { $0["change"] == "address-added \(device) 10.9.0.7/24" }
        try bed.exec("a", ["ip", "addr", "del", "10.9.0.7/24", "dev", device])
        _ = try a.waitFor("network", after: mark, timeout: .seconds(5)) { $0["change"] == "address-removed \(device) 10.9.0.7/24" }
        try bed.exec("a", ["ip", "route", "add", "10.77.0.0/16", "via", "10.0.1.2"])
        _ = try a.waitFor("network", after: mark, timeout: .seconds(5)) { $0["change"] == "route-added 10.77.0.0/16 via 10.0.1.2 dev \(device)" }
        try bed.exec("a", ["ip", "link", "set", device, "down"])
        _ = try a.waitFor("network", after: mark, timeout: .seconds(5)) { $0["change"] == "link \(device) down" }
    }

    @Test func truncatedAndMalformedMessagesAreIgnored() {
        // nlmsghdr claiming 64 bytes in a 20-byte datagram, then garbage.
        let bad: [UInt8] = [64, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]
        let changes = bad.withUnsafeBytes { NetlinkParser.changes(in: $0) { _ in nil } }
        #expect(changes.isEmpty)
        let empty = [UInt8]().withUnsafeBytes { NetlinkParser.changes(in: $0) { _ in nil } }
        #expect(empty.isEmpty)
    }

    @Test func newAddressMessageIsDecoded() {
        // RTM_NEWADDR: nlmsghdr(16) + ifaddrmsg(8: AF_INET, /24, 0, 0, index 3) + IFA_ADDRESS(8)
        var message: [UInt8] = [32, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        message += [2, 24, 0, 0, 3, 0, 0, 0]
        message += [8, 0, 1, 0, 192, 0, 2, 9]
        let changes = message.withUnsafeBytes { NetlinkParser.changes(in: $0) { $0 == 3 ? "eth9" : nil } }
        #expect(changes == [.addressAdded(interface: "eth9", address: "192.0.2.9", prefixLength: 24)])
    }
}
