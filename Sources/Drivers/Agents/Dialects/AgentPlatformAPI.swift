import Foundation
import Signaling

#if canImport(Glibc)
import Glibc
import Parley
#endif

/// The few REST calls a platform's bot makes about its call, served on loopback for the run
/// (`--agent-api-port`, docs/agents.md "Hang-up and transfer over REST"): Twilio's call update
/// with `Status=completed`, Telnyx's hangup and transfer actions, Plivo's call DELETE and
/// Vonage's call PUT with `hangup`. Anything else is answered 404. Credentials are accepted
/// unread: this stands in for the platform on the developer's machine, not for its security.
///
/// One thread (`parley-agent-api`) serves one short request at a time: a bot makes one such
/// call per call it ends, so nothing here is on a media path.
public final class AgentPlatformAPI: Sendable {
    public let port: Int
    private let listener: Int32
    /// Told each request's method, path and answer (ids only: no header, no body, no credential).
    private let report: @Sendable (String) -> Void

    /// The most a request may be, head and body.
    static let maximumRequest = 16_384

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    public static func start(port: Int, report: @escaping @Sendable (String) -> Void) throws(ParleyError) -> AgentPlatformAPI {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ParleyError(kind: .configuration, message: "--agent-api-port: cannot make a socket (errno \(errno))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw ParleyError(kind: .configuration, message: "--agent-api-port: cannot listen on 127.0.0.1:\(port) (\(String(cString: strerror(code))))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let api = AgentPlatformAPI(listener: descriptor, port: Int(UInt16(bigEndian: address.sin_port)), report: report)
        let thread = Thread { api.serve() }
        thread.name = "parley-agent-api"
        thread.start()
        return api
    }

    private init(listener: Int32, port: Int, report: @escaping @Sendable (String) -> Void) {
        self.listener = listener
        self.port = port
        self.report = report
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            // A client that stalls is dropped after 2 s: one request at a time must not hang the rest.
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let request = Self.read(connection)
            let reply = AgentPlatformRoutes.answer(request)
            let status = reply.split(separator: "\r\n", maxSplits: 1).first.map { $0.dropFirst(9) } ?? ""
            report("\(request.map { "\($0.method) \($0.path.prefix(200))" } ?? "a malformed request"): \(status)")
            var bytes = Array(reply.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeMutableBytes { send(connection, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { break }
                sent += count
            }
            close(connection)
        }
    }

    /// The request's bytes: its head and as much body as its Content-Length says; nil when it
    /// is larger than allowed, malformed, or not all there within the timeout.
    private static func read(_ connection: Int32) -> AgentPlatformRequest? {
        var buffer = [UInt8](repeating: 0, count: maximumRequest)
        var count = 0
        while count < buffer.count {
            let got = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress! + count, $0.count - count, 0) }
            guard got > 0 else { return nil }
            count += got
            if let request = AgentPlatformRequest(parsing: buffer[..<count]) { return request }
        }
        return nil
    }
}

/// One HTTP/1.1 request, whole: method, path, headers' Content-Type, body.
struct AgentPlatformRequest: Equatable {
    let method: String
    let path: String
    let contentType: String
    let body: [UInt8]

    /// nil until the head and the whole body are there.
    init?(parsing bytes: ArraySlice<UInt8>) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3 else { return nil }
        var length = 0
        var contentType = ""
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) ?? -1 }
            if name == "content-type" { contentType = value.lowercased() }
        }
        let bodyStart = headEnd + 4
        guard length >= 0, bytes.endIndex - bodyStart >= length else { return nil }
        method = String(requestLine[0])
        path = String(requestLine[1])
        self.contentType = contentType
        body = Array(bytes[bodyStart..<(bodyStart + length)])
    }
}
