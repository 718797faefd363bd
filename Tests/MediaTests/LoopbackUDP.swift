import Foundation
import Glibc
import Media
import Locking

/// Test-only MediaTransport: a UDP socket on 127.0.0.1 connected to its peer.
final class LoopbackSocket: MediaTransport, @unchecked Sendable {
    let descriptor: Int32
    let port: UInt16
    private let lock = Lock(())
    private var dropsRemaining = 0
    private var dropPeriod = 0
    private var sinceDrop = 0
    private var refusing = false
    private(set) var sentDatagrams = 0

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    func connect(to peer: LoopbackSocket) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = peer.port.bigEndian
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }

    /// Silently loses the next `count` outgoing datagrams.
    func dropNext(_ count: Int) {
        lock.withLock { _ in dropsRemaining = count }
    }

    /// Loses every `period`th outgoing RTP datagram from now on (0 stops), like a lossy link.
    func dropEvery(_ period: Int) {
        lock.withLock { _ in
            dropPeriod = period
            sinceDrop = 0
        }
    }

    /// While on, `send` returns false and sends nothing, as ICE's transport does before it has
    /// selected a pair.
    func refuse(_ on: Bool) {
        lock.withLock { _ in refusing = on }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let outcome: Bool? = lock.withLock { _ in
            if refusing { return nil }
            sentDatagrams += 1
            var drop = dropsRemaining > 0
            if drop { dropsRemaining -= 1 }
            if dropPeriod > 0, PacketKind.classify(bytes) == .rtp {
                sinceDrop += 1
                if sinceDrop == dropPeriod {
                    sinceDrop = 0
                    drop = true
                }
            }
            return drop
        }
        guard let drop = outcome else { return false }
        if drop { return true }
        return Glibc.send(descriptor, bytes.baseAddress, bytes.count, 0) == bytes.count
    }
}

/// Test-only network thread: polls sockets and hands each datagram to its receiver, as the
/// ICE module's GLib thread will.
final class LoopbackNetwork: @unchecked Sendable {
    private let lock = Lock(())
    private var entries: [(socket: LoopbackSocket, receive: (UnsafeRawBufferPointer) -> Void)] = []
    private var running = true
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    func attach(_ socket: LoopbackSocket, receive: @escaping (UnsafeRawBufferPointer) -> Void) {
        lock.withLock { _ in entries.append((socket, receive)) }
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "test-network"
        self.thread = thread
        thread.start()
    }

    func stop() {
        let wasRunning = lock.withLock { _ in
            defer { running = false }
            return running
        }
        if wasRunning && thread != nil { _ = finished.wait(timeout: .now() + 2) }
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer {
            buffer.deallocate()
            finished.signal()
        }
        while true {
            let (current, keepRunning) = lock.withLock { _ in (entries, running) }
            guard keepRunning else { return }
            var descriptors = current.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 20) > 0 else { continue }
            for (index, entry) in current.enumerated() where descriptors[index].revents & Int16(POLLIN) != 0 {
                let received = recv(entry.socket.descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if received > 0 { entry.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) }
            }
        }
    }
}
