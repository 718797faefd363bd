import Glibc

public struct LoopbackPeerFailed: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// The far end of a SIP flow in a transport test: a loopback UDP socket, or a TCP listener and
/// the one connection it accepts (Signaling's and Parley's SIP tests). Blocking calls wait at most their `within` seconds.
public final class LoopbackSIPPeer {
    public let port: Int
    private let listening: Int32
    private let datagram: Bool
    private var connection: Int32 = -1
    private var branchesSeen: Set<String> = []

    public init(datagram: Bool) throws {
        self.datagram = datagram
        do {
            (listening, port) = try boundLoopbackSocket(datagram ? SOCK_DGRAM : SOCK_STREAM, listening: datagram ? nil : 4)
        } catch {
            throw LoopbackPeerFailed(description: "cannot bind on loopback")
        }
        if datagram { connection = listening }
    }

    deinit {
        if connection >= 0, connection != listening { close(connection) }
        close(listening)
    }

    /// Accepts the flow's TCP connection (a new one after the phone lost the last, which closes).
    public func accept(within seconds: Double) throws {
        try wait(listening, seconds)
        if connection >= 0, connection != listening { close(connection) }
        connection = Glibc.accept(listening, nil, nil)
        guard connection >= 0 else { throw LoopbackPeerFailed(description: "accept failed") }
    }

    /// The next datagram, or what the stream has (at most 64 KiB), as text. UDP remembers the sender for `send`.
    public func receive(within seconds: Double) throws -> String {
        try wait(connection, seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        if datagram {
            var sender = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &sender) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(connection, &buffer, buffer.count, 0, $0, &length) }
            }
            guard count >= 0 else { throw LoopbackPeerFailed(description: "recvfrom failed") }
            // Answers go back where the flow sent from, as a server's do.
            let connected = withUnsafePointer(to: &sender) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(connection, $0, length) }
            }
            guard connected == 0 else { throw LoopbackPeerFailed(description: "cannot answer the sender") }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
        let count = recv(connection, &buffer, buffer.count, 0)
        guard count > 0 else { throw LoopbackPeerFailed(description: "the stream ended") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// True the first time `branch` is given: a request, not a retransmission of one.
    public func takeFirstSight(of branch: String) -> Bool { branchesSeen.insert(branch).inserted }

    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(connection, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw LoopbackPeerFailed(description: "send failed") }
    }

    private func wait(_ descriptor: Int32, _ seconds: Double) throws {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) == 1 else { throw LoopbackPeerFailed(description: "nothing arrived within \(seconds) s") }
    }
}
