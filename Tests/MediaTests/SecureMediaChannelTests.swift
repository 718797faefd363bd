import Foundation
import Media
import SDP
import TestSupport
import Testing
import Locking

/// A channel behind a lock, driven by the test network thread and the test's own polling.
final class LockedChannel: @unchecked Sendable {
    let lock = Lock(())
    var channel: SecureMediaChannel!
    var received: [[UInt8]] = []

    func withChannel<T>(_ body: (SecureMediaChannel) -> T) -> T {
        lock.withLock { _ in body(channel) }
    }

    func receive(_ datagram: UnsafeRawBufferPointer) {
        lock.withLock { _ in receiveLocked(datagram) }
    }

    private func receiveLocked(_ datagram: UnsafeRawBufferPointer) {
        switch channel.receive(datagram) {
        case .rtp(let length), .rtcp(let length):
            received.append(Array(UnsafeRawBufferPointer(rebasing: channel.plaintext[0..<length])))
        case .none:
            break
        }
    }

    var state: SecureMediaChannel.State { withChannel { $0.state } }
    var counters: SecureMediaChannel.Counters { withChannel { $0.counters } }
    var packets: [[UInt8]] { withChannel { _ in received } }

    @discardableResult
    func send(_ packet: [UInt8], isRTCP: Bool = false) -> Bool {
        withChannel { channel in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyBytes(from: packet)
            return channel.send(buffer, length: packet.count, isRTCP: isRTCP)
        }
    }

    func poll() { withChannel { $0.poll() } }
}

/// Two DTLS endpoints over real UDP sockets on 127.0.0.1.
final class DTLSPair {
    let network = LoopbackNetwork()
    let clientSocket: LoopbackSocket
    let serverSocket: LoopbackSocket
    let client = LockedChannel()
    let server = LockedChannel()

    init(profiles: [SRTPProfile] = SRTPProfile.dtlsProfiles, serverExpects: Fingerprint? = nil) throws {
        clientSocket = try LoopbackSocket()
        serverSocket = try LoopbackSocket()
        clientSocket.connect(to: serverSocket)
        serverSocket.connect(to: clientSocket)
        let clientIdentity = try DTLSIdentity.generate()
        let serverIdentity = try DTLSIdentity.generate()
        client.channel = try SecureMediaChannel(
            security: .dtls(identity: clientIdentity, role: .client, remoteFingerprint: serverIdentity.fingerprint, profiles: profiles),
            transport: clientSocket)
        server.channel = try SecureMediaChannel(
            security: .dtls(identity: serverIdentity, role: .server, remoteFingerprint: serverExpects ?? clientIdentity.fingerprint, profiles: profiles),
            transport: serverSocket)
        network.attach(clientSocket) { [client] in client.receive($0) }
        network.attach(serverSocket) { [server] in server.receive($0) }
        network.start()
    }

    func start() {
        server.withChannel { $0.start() }
        client.withChannel { $0.start() }
    }

    /// Polls both sides (timers) until both are secure or one failed, for at most `seconds`.
    func settle(seconds: Double = 5) -> Bool {
        waitUntil(seconds: seconds) {
            client.poll()
            server.poll()
            let states = [client.state, server.state]
            return states.allSatisfy { if case .secure = $0 { true } else { false } }
                || states.contains { if case .failed = $0 { true } else { false } }
        }
    }

    deinit { network.stop() }
}

func rtpPacket(sequence: UInt16, payload: [UInt8] = Array(repeating: 0x42, count: 160)) -> [UInt8] {
    [0x80, 0, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0xAB, 0xCD, 0xEF, 0x01] + payload
}

@Suite(.serialized) struct SecureMediaChannelTests {
    @Test(arguments: SRTPProfile.dtlsProfiles)
    func dtlsSRTPOverUDPLoopback(profile: SRTPProfile) throws {
        let pair = try DTLSPair(profiles: [profile])
        pair.start()
        #expect(pair.settle())
        #expect(pair.client.state == .secure(profile))
        #expect(pair.server.state == .secure(profile))
        let packet = rtpPacket(sequence: 1)
        #expect(pair.client.send(packet))
        #expect(pair.server.send(rtpPacket(sequence: 9)))
        #expect(waitUntil(seconds: 2) { pair.server.packets.count == 1 && pair.client.packets.count == 1 })
        #expect(pair.server.packets.first == packet)
        #expect(pair.client.packets.first == rtpPacket(sequence: 9))
    }

    @Test func srtcpTravelsToo() throws {
        let pair = try DTLSPair()
        pair.start()
        #expect(pair.settle())
        let report: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 7]
        #expect(pair.client.send(report, isRTCP: true))
        #expect(waitUntil(seconds: 2) { pair.server.packets == [report] })
    }

    @Test func fingerprintMismatchFailsAndNoMediaFlows() throws {
        let stranger = try DTLSIdentity.generate()
        let pair = try DTLSPair(serverExpects: stranger.fingerprint)
        pair.start()
        #expect(pair.settle())
        #expect(pair.server.state == .failed(.fingerprintMismatch(hashFunction: "sha-256")))
        // The client was refused by the server's alert; it is not secure either.
        #expect(waitUntil(seconds: 2) {
            pair.client.poll()
            if case .failed = pair.client.state { return true }
            return false
        })
        #expect(!pair.client.send(rtpPacket(sequence: 1)))
        #expect(!pair.server.send(rtpPacket(sequence: 1)))
        #expect(pair.server.packets.isEmpty && pair.client.packets.isEmpty)
    }

    @Test func garbageAndReplaysAreDroppedAndCounted() throws {
        let pair = try DTLSPair()
        pair.start()
        #expect(pair.settle())
        #expect(pair.client.send(rtpPacket(sequence: 100)))
        #expect(waitUntil(seconds: 2) { pair.server.packets.count == 1 })

        // Garbage straight onto the wire: forged RTP, forged DTLS, random bytes, an empty datagram.
        var generator = SplitMix(seed: 99)
        for index in 0..<200 {
            var bytes = (0..<(1 + Int(generator.next() % 300))).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            switch index % 4 {
            case 0: bytes = rtpPacket(sequence: UInt16(index)) + [UInt8](repeating: 0, count: 16)
            case 1: bytes[0] = 23
            case 2: bytes[0] = 0x80 | (bytes[0] & 0x3F)
            default: break
            }
            _ = bytes.withUnsafeBytes { pair.clientSocket.send($0) }
        }
        #expect(waitUntil(seconds: 2) { pair.server.counters.authenticationFailures >= 100 })
        #expect(pair.server.state == .secure(.aeadAES256GCM))
        #expect(pair.server.packets.count == 1)

        // A healthy packet still passes afterwards.
        #expect(pair.client.send(rtpPacket(sequence: 101)))
        #expect(waitUntil(seconds: 2) { pair.server.packets.count == 2 })
        #expect(pair.server.packets.last == rtpPacket(sequence: 101))
    }

    @Test func replayedSRTPIsRejected() throws {
        let clientSocket = try LoopbackSocket()
        let material = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: Array(repeating: 1, count: 30), remoteMasterKey: Array(repeating: 2, count: 30))
        let mirrored = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: Array(repeating: 2, count: 30), remoteMasterKey: Array(repeating: 1, count: 30))
        let sender = try SRTPContext(profile: material.profile, masterKey: material.localMasterKey, direction: .outbound)
        let receiver = try SecureMediaChannel(security: .sdes(mirrored), transport: clientSocket)
        var buffer = rtpPacket(sequence: 5) + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
        let length = try buffer.withUnsafeMutableBytes { try sender.protectRTP($0, length: 172) }
        let protected = Array(buffer.prefix(length))
        #expect(protected.withUnsafeBytes { receiver.receive($0) } == .rtp(length: 172))
        #expect(protected.withUnsafeBytes { receiver.receive($0) } == .none)
        #expect(receiver.counters.replays == 1)
        // One flipped payload bit in a fresh packet fails authentication (replay is checked first,
        // so the tampered packet must carry a new sequence number).
        var next = rtpPacket(sequence: 6) + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
        let nextLength = try next.withUnsafeMutableBytes { try sender.protectRTP($0, length: 172) }
        var tampered = Array(next.prefix(nextLength))
        tampered[20] ^= 1
        #expect(tampered.withUnsafeBytes { receiver.receive($0) } == .none)
        #expect(receiver.counters.authenticationFailures == 1)
    }

    /// Plain RTP for a classic SIP peer (`MediaSecurity.unencrypted`): ready at once, RTP and
    /// RTCP taken and sent as they are, DTLS and garbage still refused.
    @Test func unencryptedPassesRTPAsItIs() throws {
        let socket = try LoopbackSocket()
        let peer = try LoopbackSocket()
        socket.connect(to: peer)
        var states: [SecureMediaChannel.State] = []
        let channel = try SecureMediaChannel(security: .unencrypted, transport: socket) { states.append($0) }
        #expect(channel.state == .unencrypted)
        #expect(states == [.unencrypted])
        let packet = rtpPacket(sequence: 9)
        #expect(packet.withUnsafeBytes { channel.receive($0) } == .rtp(length: packet.count))
        #expect(Array(channel.plaintext.prefix(packet.count)) == packet)
        let report: [UInt8] = [0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1]
        #expect(report.withUnsafeBytes { channel.receive($0) } == .rtcp(length: report.count))
        #expect([UInt8]([22, 0xFE, 0xFD, 0]).withUnsafeBytes { channel.receive($0) } == .none)
        #expect([UInt8]([0x41, 0x42]).withUnsafeBytes { channel.receive($0) } == .none)
        #expect(channel.counters.unknownDatagrams == 2)

        let sender = try #require(channel.takeSender())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: packet)
        #expect(sender.send(buffer, length: packet.count, isRTCP: false))
        var received = [UInt8](repeating: 0, count: 2048)
        let count = received.withUnsafeMutableBytes { recv(peer.descriptor, $0.baseAddress, $0.count, 0) }
        #expect(Array(received.prefix(max(count, 0))) == packet)
    }

    @Test func lostClientHelloIsRetransmitted() throws {
        let pair = try DTLSPair()
        pair.clientSocket.dropNext(1)
        pair.start()
        #expect(pair.settle(seconds: 5))
        #expect(pair.client.state == .secure(.aeadAES256GCM))
        #expect(pair.server.state == .secure(.aeadAES256GCM))
    }

    /// The caller of a call is the DTLS server: the callee's ClientHello can reach it before its
    /// own ICE has a pair, so its answer is refused. That answer leaves when its session starts,
    /// without waiting for the client to retransmit: no side is polled here, so no timer runs and
    /// the handshake finishes only if the refused flight is sent again.
    @Test func flightRefusedBeforeICEConnectsLeavesAtStart() throws {
        let pair = try DTLSPair()
        pair.serverSocket.refuse(true)
        pair.client.withChannel { $0.start() }
        #expect(waitUntil(seconds: 5) { pair.server.counters.handshakeDatagramsRefused > 0 })
        #expect(pair.server.state == .negotiating)
        pair.serverSocket.refuse(false)
        pair.server.withChannel { $0.start() }
        #expect(waitUntil(seconds: 5) { pair.client.state == .secure(.aeadAES256GCM) && pair.server.state == .secure(.aeadAES256GCM) })
    }

    @Test func silentPeerTimesOut() throws {
        let clientIdentity = try DTLSIdentity.generate()
        let endpoint = try DTLSEndpoint(identity: clientIdentity, role: .client, remoteFingerprint: clientIdentity.fingerprint, handshakeTimeout: .milliseconds(300)) { _ in }
        let start = ContinuousClock.now
        endpoint.start(now: start)
        endpoint.poll(now: start + .milliseconds(100))
        #expect(endpoint.state == .handshaking)
        endpoint.poll(now: start + .milliseconds(400))
        #expect(endpoint.state == .failed(.handshakeTimeout(seconds: 0.3)))
    }

    @Test func recordBuffersAreFreedOnceTheHandshakeIsDoneAndAfterALaterRecord() throws {
        // Kept, they would cost ~34 KiB for each call's whole life, for a handshake that is over in
        // its first second (docs/media.md).
        final class Wire {
            var toServer: [[UInt8]] = []
            var toClient: [[UInt8]] = []
        }
        let wire = Wire()
        let clientIdentity = try DTLSIdentity.generate()
        let serverIdentity = try DTLSIdentity.generate()
        let client = try DTLSEndpoint(identity: clientIdentity, role: .client, remoteFingerprint: serverIdentity.fingerprint) { wire.toServer.append(Array($0)) }
        let server = try DTLSEndpoint(identity: serverIdentity, role: .server, remoteFingerprint: clientIdentity.fingerprint) { wire.toClient.append(Array($0)) }
        var clientFlights: [[UInt8]] = []
        var serverFlights: [[UInt8]] = []
        client.start()
        for _ in 0..<20 where !(wire.toServer.isEmpty && wire.toClient.isEmpty) {
            let toServer = wire.toServer, toClient = wire.toClient
            wire.toServer = []
            wire.toClient = []
            clientFlights += toServer
            serverFlights += toClient
            for datagram in toServer { datagram.withUnsafeBytes { server.receive($0) } }
            for datagram in toClient { datagram.withUnsafeBytes { client.receive($0) } }
        }
        let isConnected = { (endpoint: DTLSEndpoint) in
            if case .connected = endpoint.state { true } else { false }
        }
        try #require(isConnected(client) && isConnected(server))
        #expect(client.recordBuffersFreed)
        #expect(server.recordBuffersFreed)
        // A record after the handshake (each side's last datagram, replayed): OpenSSL takes new
        // buffers to read it, drops it, and they are freed again; the connection stays.
        for (endpoint, flights) in [(server, clientFlights), (client, serverFlights)] {
            try #require(flights.last).withUnsafeBytes { endpoint.receive($0) }
            #expect(isConnected(endpoint))
            #expect(endpoint.recordBuffersFreed)
        }
    }

    @Test func sdesKeysFromCryptoLines() throws {
        let suite = "AES_CM_128_HMAC_SHA1_80"
        let ours = try Crypto(attributeValue: "1 \(suite) \(try #require(SDESKeys.inlineKey(for: suite)))")
        let theirs = try Crypto(attributeValue: "1 \(suite) \(try #require(SDESKeys.inlineKey(for: suite)))")
        guard case .sdes(let material) = try MediaSecurity.sdes(local: ours, remote: theirs) else { Issue.record("not SDES"); return }
        #expect(material.profile == .aes128CMHMACSHA1_80)
        #expect(material.localMasterKey.count == 30)
        #expect(!"\(material)".contains("inline"))
        let other = try Crypto(attributeValue: "1 AEAD_AES_128_GCM \(try #require(SDESKeys.inlineKey(for: "AEAD_AES_128_GCM")))")
        #expect(throws: MediaSecurityError.suiteMismatch(local: suite, remote: "AEAD_AES_128_GCM")) { try MediaSecurity.sdes(local: ours, remote: other) }
        let short = try Crypto(attributeValue: "1 \(suite) inline:AAAA")
        #expect(throws: MediaSecurityError.invalidKey(side: "remote")) { try MediaSecurity.sdes(local: ours, remote: short) }
    }
}

