// SOCK_STREAM/SOCK_DGRAM come from glibc's bits/socket_type.h, which the GLib headers pull into
// the CNice module first; without this import a clean build cannot see them.
import CNice
import Foundation

/// Asks a TURN server, the way libnice did, for an allocation, and reads its answer: this turns
/// libnice's silence about a refused allocation into an error that says why. Blocking, bounded
/// (about 2 s per step); run off the network thread, only after an allocation failed.
enum TURNProbe {
    static func diagnose(_ relay: ResolvedRelay) -> ICEError {
        let name = relay.server.description
        if let reason = relay.tunnel?.lastError { return .tlsTunnelFailed(server: name, reason: reason) }
        guard let channel = ProbeChannel(address: relay.address, port: relay.port, stream: relay.server.transport != .udp) else {
            return .turnAllocationFailed(server: name, reason: "cannot connect")
        }
        defer { channel.close() }

        var request = STUNMessage.request(STUNMessage.allocate)
        request.attributes = [(STUNMessage.Attribute.requestedTransport.rawValue, [17, 0, 0, 0])]
        guard let challenge = channel.exchange(request.encoded(), transactionID: request.transactionID) else {
            if let reason = relay.tunnel?.lastError { return .tlsTunnelFailed(server: name, reason: reason) }
            return .turnAllocationFailed(server: name, reason: "no answer")
        }
        guard challenge.isError, challenge.error?.code == 401,
              let realm = challenge.attribute(.realm), var nonce = challenge.attribute(.nonce) else {
            return unexpected(challenge, server: name)
        }
        let username = Array((relay.server.username ?? "").utf8)
        let key = Digest.md5(username + Array(":".utf8) + realm + Array(":".utf8) + Array((relay.server.credential ?? "").utf8))
        for _ in 0..<2 {
            var authenticated = STUNMessage.request(STUNMessage.allocate)
            authenticated.attributes = [
                (STUNMessage.Attribute.requestedTransport.rawValue, [17, 0, 0, 0]),
                (STUNMessage.Attribute.username.rawValue, username),
                (STUNMessage.Attribute.realm.rawValue, realm),
                (STUNMessage.Attribute.nonce.rawValue, nonce),
            ]
            guard let answer = channel.exchange(authenticated.encoded(integrityKey: key), transactionID: authenticated.transactionID) else {
                return .turnAllocationFailed(server: name, reason: "no answer to the authenticated request")
            }
            if answer.isSuccess {
                release(on: channel, username: username, realm: realm, nonce: nonce, key: key)
                return .turnAllocationFailed(server: name, reason: "the server allocates for us now; the first attempt failed on the way")
            }
            switch answer.error?.code {
            case 401: return .turnAuthenticationFailed(server: name)
            case 438:
                guard let fresh = answer.attribute(.nonce) else { return unexpected(answer, server: name) }
                nonce = fresh
            default: return unexpected(answer, server: name)
            }
        }
        return .turnAllocationFailed(server: name, reason: "the server keeps calling our nonce stale")
    }

    private static func unexpected(_ answer: STUNMessage, server: String) -> ICEError {
        if let (code, reason) = answer.error {
            return .turnAllocationFailed(server: server, reason: "error \(code) \(reason)")
        }
        return .turnAllocationFailed(server: server, reason: "unexpected answer")
    }

    /// Frees the allocation the probe made (a Refresh with lifetime 0).
    private static func release(on channel: ProbeChannel, username: [UInt8], realm: [UInt8], nonce: [UInt8], key: [UInt8]) {
        var refresh = STUNMessage.request(STUNMessage.refresh)
        refresh.attributes = [
            (STUNMessage.Attribute.lifetime.rawValue, [0, 0, 0, 0]),
            (STUNMessage.Attribute.username.rawValue, username),
            (STUNMessage.Attribute.realm.rawValue, realm),
            (STUNMessage.Attribute.nonce.rawValue, nonce),
        ]
        _ = channel.exchange(refresh.encoded(integrityKey: key), transactionID: refresh.transactionID)
    }
}

/// A blocking UDP or TCP socket with 2 s timeouts, for the probe.
final class ProbeChannel {
    private let descriptor: Int32
    private let stream: Bool

    init?(address: String, port: UInt16, stream: Bool) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(stream ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, String(port), &hints, &result) == 0, let info = result else { return nil }
        defer { freeaddrinfo(info) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
        guard descriptor >= 0 else { return nil }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.stream = stream
    }

    func close() { Glibc.close(descriptor) }

    /// Sends `bytes` (over UDP up to three times) and returns the answer with `transactionID`.
    func exchange(_ bytes: [UInt8], transactionID: [UInt8]) -> STUNMessage? {
        for _ in 0..<(stream ? 1 : 3) {
            guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
            for _ in 0..<4 {
                guard let message = receive() else { break }
                if message.transactionID == transactionID { return message }
            }
        }
        return nil
    }

    private func receive() -> STUNMessage? {
        if !stream {
            var buffer = [UInt8](repeating: 0, count: 1500)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? STUNMessage.decode(Array(buffer[..<count])) : nil
        }
        guard let header = read(20) else { return nil }
        let length = Int(header[2]) << 8 | Int(header[3])
        guard length <= 4096, let body = read(length) else { return nil }
        return STUNMessage.decode(header + body)
    }

    private func read(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
