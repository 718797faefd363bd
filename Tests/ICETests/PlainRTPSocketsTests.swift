import Foundation
import ICE
import Locking
import TestSupport
import Testing

/// The sockets of media without ICE on loopback, against plain UDP sockets playing the peer:
/// the even/odd port pair, RTCP on its own port, garbage before latching, symmetric RTP (the
/// peer's real source latched), and another address after latching (docs/media.md, "Media
/// without ICE").
@Suite(.serialized) struct PlainRTPSocketsTests {
    /// A UDP socket on 127.0.0.1 standing in for the peer (or a stranger).
    final class Peer {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
            try #require(bound == 0)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        func send(_ bytes: [UInt8], to port: Int) {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            _ = bytes.withUnsafeBytes { raw in
                withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            }
        }

        /// The next datagram within 200 ms, or nil.
        func receive() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(buffer[0..<count]) : nil
        }
    }

    static let rtp: [UInt8] = [0x80, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 160)
    static let rtcp: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1]
    static let garbage: [UInt8] = Array("not media at all".utf8)

    /// Collects what the handler got; accepts what starts like RTP version 2 (the media
    /// session's own check is stricter).
    final class Received: Sendable {
        let packets = Lock<[[UInt8]]>([])
        var count: Int { packets.withLock { $0.count } }
        func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
            packets.withLock { $0.append(Array(bytes)) }
            return bytes.count >= 8 && bytes[0] & 0xC0 == 0x80
        }
    }

    @Test func bindsAnEvenPortAndTheNextOnTheInterface() throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        defer { sockets.close() }
        #expect(sockets.localAddress == "127.0.0.1")
        #expect(sockets.rtpPort % 2 == 0)
        #expect(sockets.rtcpPort == sockets.rtpPort + 1)
    }

    @Test func anInterfaceThatIsNotThereIsATypedError() {
        #expect(throws: PlainRTPError.self) { _ = try PlainRTPSockets(allowedInterfaces: ["no-such-if0"], ipv6: false, loop: .shared) }
    }

    @Test func garbageDoesNotLatchAndTheFirstValidPacketDoes() async throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        defer { sockets.close() }
        let announced = try Peer() // the address the peer's SDP gives
        let natted = try Peer() // where its packets really come from
        let stranger = try Peer()
        let received = Received()
        try sockets.start(remoteAddress: "127.0.0.1", rtpPort: announced.port, rtcpAddress: "127.0.0.1", rtcpPort: announced.port + 1, rtcpMux: true) { received.take($0) }

        // Before any packet, media goes to the announced address.
        #expect(Self.rtp.withUnsafeBytes { sockets.send($0) })
        #expect(announced.receive() == Self.rtp)

        // Garbage from a stranger reaches the handler, which refuses it: nothing is latched.
        stranger.send(Self.garbage, to: sockets.rtpPort)
        try await waitUntil("the garbage handled") { received.count == 1 }
        #expect(sockets.latchedRTPPeerPort == nil)
        #expect(Self.rtp.withUnsafeBytes { sockets.send($0) })
        #expect(announced.receive() == Self.rtp)

        // The peer's first valid packet, from its NAT's address, latches: replies follow it.
        natted.send(Self.rtp, to: sockets.rtpPort)
        try await waitUntil("the peer latched") { sockets.latchedRTPPeerPort != nil }
        #expect(sockets.latchedRTPPeerPort == natted.port)
        #expect(Self.rtp.withUnsafeBytes { sockets.send($0) })
        #expect(natted.receive() == Self.rtp)
        #expect(announced.receive() == nil)

        // After latching, another address is not heard, even with valid media; the peer is.
        stranger.send(Self.rtp, to: sockets.rtpPort)
        natted.send(Self.rtcp, to: sockets.rtpPort)
        try await waitUntil("the peer's RTCP handled") { received.count == 3 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.count == 3)
        #expect(received.packets.withLock { $0.last } == Self.rtcp)
    }

    @Test func withoutRTCPMuxRTCPHasItsOwnPortBothWays() async throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        defer { sockets.close() }
        let peerRTP = try Peer()
        let peerRTCP = try Peer()
        let received = Received()
        try sockets.start(remoteAddress: "127.0.0.1", rtpPort: peerRTP.port, rtcpAddress: "127.0.0.1", rtcpPort: peerRTCP.port, rtcpMux: false) { received.take($0) }

        #expect(Self.rtcp.withUnsafeBytes { sockets.send($0) })
        #expect(peerRTCP.receive() == Self.rtcp)
        #expect(Self.rtp.withUnsafeBytes { sockets.send($0) })
        #expect(peerRTP.receive() == Self.rtp)
        peerRTCP.send(Self.rtcp, to: sockets.rtcpPort)
        try await waitUntil("RTCP on the RTCP port") { received.count == 1 }
    }

    @Test func anUnspecifiedAddressSendsNothingUntilThePeerIsLatched() async throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        defer { sockets.close() }
        let peer = try Peer()
        let received = Received()
        try sockets.start(remoteAddress: "0.0.0.0", rtpPort: peer.port, rtcpAddress: "0.0.0.0", rtcpPort: peer.port + 1, rtcpMux: true) { received.take($0) }
        #expect(!Self.rtp.withUnsafeBytes { sockets.send($0) })
        peer.send(Self.rtp, to: sockets.rtpPort)
        try await waitUntil("the peer latched") { sockets.latchedRTPPeerPort == peer.port }
        #expect(Self.rtp.withUnsafeBytes { sockets.send($0) })
        #expect(peer.receive() == Self.rtp)
    }

    @Test func aClosedPairSendsNothing() throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        let peer = try Peer()
        try sockets.start(remoteAddress: "127.0.0.1", rtpPort: peer.port, rtcpAddress: "127.0.0.1", rtcpPort: peer.port + 1, rtcpMux: true) { _ in true }
        sockets.close()
        #expect(!Self.rtp.withUnsafeBytes { sockets.send($0) })
    }

    @Test func aNameInsteadOfAnAddressIsRefused() throws {
        let sockets = try PlainRTPSockets(allowedInterfaces: ["lo"], ipv6: false, loop: .shared)
        defer { sockets.close() }
        #expect(throws: PlainRTPError.badRemoteAddress("phone.example")) {
            try sockets.start(remoteAddress: "phone.example", rtpPort: 4000, rtcpAddress: "phone.example", rtcpPort: 4001, rtcpMux: true) { _ in true }
        }
    }
}
