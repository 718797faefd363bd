import CNice
import Foundation
import Synchronization

/// One socket of `PlainRTPSockets`: its descriptor, where it sends until the peer is latched,
/// and its GLib watch. `send` (the media clock's thread) reads the destination only after the
/// `aimed` flag published it, and uses the connected socket once `latched` is set; the watch and
/// the latching belong to the loop's thread. The watch holds its owner until `close` destroys it.
/// Unchecked: a destination is written into the slot `send` does not read before `slot`
/// publishes it (`reaim`: a peer's re-offer that moved its media, seconds apart, never two within
/// one send); the rest is atomics or confined to the network loop thread.
final class PlainUDPSocket: @unchecked Sendable {
    let descriptor: Int32
    private let family: Int32
    /// Two slots: the one `slot` names is where `send` aims, the other is where a move is written.
    private let destination = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: 2)
    private let destinationLength = UnsafeMutablePointer<socklen_t>.allocate(capacity: 2)
    private let slot = Atomic<Int>(0)
    private let aimed = Atomic<Bool>(false)
    private let latchedFlag = Atomic<Bool>(false)
    /// Loop thread only.
    private var sourceID: UInt32 = 0
    private var descriptorClosed = false
    /// The latched peer's port, 0 before: an atomic, as tests and statistics read it off the loop.
    private let latchedPort = Atomic<Int>(0)

    private init(descriptor: Int32, family: Int32) {
        self.descriptor = descriptor
        self.family = family
        destination.initialize(repeating: sockaddr_storage(), count: 2)
        destinationLength.initialize(repeating: 0, count: 2)
    }

    deinit {
        destination.deallocate()
        destinationLength.deallocate()
        if !descriptorClosed { Glibc.close(descriptor) }
    }

    var isLatched: Bool { latchedFlag.load(ordering: .acquiring) }
    var latchedPeerPort: Int? {
        let port = latchedPort.load(ordering: .acquiring)
        return port == 0 ? nil : port
    }

    /// An even port for RTP and the next one for RTCP (RFC 3550 §11), bound on `address`.
    static func evenPair(on address: String, tries: Int = 32) throws(PlainRTPError) -> (rtp: PlainUDPSocket, rtcp: PlainUDPSocket, port: Int) {
        for _ in 0..<tries {
            let first = try bound(address, port: 0)
            let port = first.localPort
            guard port % 2 == 0, port < 65535 else { continue }
            guard let second = try? bound(address, port: port + 1) else { continue }
            return (first, second, port)
        }
        throw .noPortPair(tries: tries)
    }

    private static func bound(_ address: String, port: Int) throws(PlainRTPError) -> PlainUDPSocket {
        guard var socketAddress = SocketAddress(numeric: address, port: port) else { throw .badRemoteAddress(address) }
        let descriptor = socket(socketAddress.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(operation: "creation", errno: errno) }
        let socket = PlainUDPSocket(descriptor: descriptor, family: socketAddress.family)
        let result = socketAddress.withSockaddr { bind(descriptor, $0, $1) }
        guard result == 0 else { throw .socket(operation: "bind", errno: errno) }
        return socket
    }

    private var localPort: Int { SocketName.local(descriptor)?.port ?? 1 }

    /// Before the session sends: where packets go until the peer is latched. An unspecified
    /// address (`c=IN IP4 0.0.0.0`, an old way to hold, RFC 3264 §8.4) aims nowhere: nothing
    /// leaves until the peer's first packet latches it (to 0.0.0.0, Linux would deliver locally).
    func setDestination(_ address: String, port: Int) throws(PlainRTPError) {
        guard !aimed.load(ordering: .acquiring) else { return }
        guard address != "0.0.0.0", address != "::" else { return }
        try write(address, port: port, into: 0)
        aimed.store(true, ordering: .releasing)
    }

    /// Mid-call, the peer's media moved: packets go to `address` from now on. The caller then
    /// `unlatch`es on the loop's thread, so that the peer's first packet from there latches again.
    func reaim(_ address: String, port: Int) throws(PlainRTPError) {
        let next = 1 - slot.load(ordering: .acquiring)
        try write(address, port: port, into: next)
        slot.store(next, ordering: .releasing)
        aimed.store(true, ordering: .releasing)
    }

    /// Loop thread: forgets the latched peer (an `AF_UNSPEC` connect dissolves the association),
    /// so that packets from any address are read again and the next accepted one latches.
    func unlatch() {
        guard latchedFlag.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var unspecified = sockaddr()
        unspecified.sa_family = sa_family_t(AF_UNSPEC)
        _ = connect(descriptor, &unspecified, socklen_t(MemoryLayout<sockaddr>.size))
        latchedPort.store(0, ordering: .releasing)
    }

    private func write(_ address: String, port: Int, into index: Int) throws(PlainRTPError) {
        guard var socketAddress = SocketAddress(numeric: address, port: port), socketAddress.family == family else {
            throw .badRemoteAddress(address)
        }
        destinationLength[index] = socketAddress.withSockaddr { pointer, length in
            UnsafeMutableRawPointer(destination + index).copyMemory(from: pointer, byteCount: Int(length))
            return length
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let sent: Int
        if latchedFlag.load(ordering: .acquiring) {
            sent = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        } else if aimed.load(ordering: .acquiring) {
            let index = slot.load(ordering: .acquiring)
            sent = (destination + index).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, destinationLength[index])
            }
        } else {
            return false
        }
        return sent == bytes.count
    }

    /// Connects the socket to the first accepted packet's source: from now on replies go there
    /// and nothing else is received.
    func latch(to source: inout sockaddr_storage, length: socklen_t) {
        let connected = withUnsafeMutablePointer(to: &source) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard connected == 0 else { return }
        latchedPort.store(SocketName.peer(descriptor)?.port ?? 0, ordering: .releasing)
        latchedFlag.store(true, ordering: .releasing)
    }

    private typealias WatchHandler = @convention(c) (UnsafeMutablePointer<GIOChannel>?, GIOCondition, gpointer?) -> gboolean

    private final class Reader {
        let socket: PlainUDPSocket
        let read: (PlainUDPSocket) -> Bool
        init(socket: PlainUDPSocket, read: @escaping (PlainUDPSocket) -> Bool) {
            self.socket = socket
            self.read = read
        }
    }

    private static let onReadable: WatchHandler = { _, _, data in
        guard let data else { return 0 }
        let reader = Unmanaged<Reader>.fromOpaque(data).takeUnretainedValue()
        return reader.read(reader.socket) ? 1 : 0
    }

    /// On the loop's thread: `read` runs each time the socket is readable, until it returns false
    /// or `close`.
    func watch(on loop: NetworkLoop, read: @escaping (PlainUDPSocket) -> Bool) {
        loop.assertOnLoopThread("watching a plain RTP socket")
        guard sourceID == 0, let channel = g_io_channel_unix_new(descriptor) else { return }
        let source = g_io_create_watch(channel, GIOCondition(G_IO_IN.rawValue | G_IO_ERR.rawValue | G_IO_HUP.rawValue))!
        g_io_channel_unref(channel)
        let data = Unmanaged.passRetained(Reader(socket: self, read: read)).toOpaque()
        g_source_set_callback(source, unsafeBitCast(Self.onReadable, to: GSourceFunc.self), data) { data in
            if let data { Unmanaged<Reader>.fromOpaque(data).release() }
        }
        sourceID = g_source_attach(source, loop.context)
        g_source_unref(source)
    }

    /// On the loop's thread, once the owner refuses to send: the watch goes (releasing what it
    /// held) and the descriptor closes.
    func close(on loop: NetworkLoop) {
        loop.assertOnLoopThread("closing a plain RTP socket")
        loop.cancel(sourceID)
        sourceID = 0
        guard !descriptorClosed else { return }
        descriptorClosed = true
        Glibc.close(descriptor)
    }
}

/// A numeric IPv4 or IPv6 address and port as a `sockaddr`, without a name lookup.
private struct SocketAddress {
    private var storage = sockaddr_storage()
    private let length: socklen_t
    let family: Int32

    init?(numeric address: String, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard (0...65535).contains(port), getaddrinfo(address, String(port), &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(first) }
        guard let socketAddress = first.pointee.ai_addr, Int(first.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { return nil }
        family = first.pointee.ai_family
        length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { $0.baseAddress!.copyMemory(from: socketAddress, byteCount: Int(first.pointee.ai_addrlen)) }
    }

    mutating func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        let length = length
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
