import CWebSockets
import Foundation
import Synchronization

/// Message size and queue limits that apply to one socket.
struct SocketLimits: Sendable {
    var maximumMessageSize: Int
    var maximumQueuedBytes: Int
}

/// Bytes waiting in a socket's outgoing queue, shared between the sending threads and the service thread.
final class SendBudget: Sendable {
    private let queued = Atomic<Int>(0)

    /// Claims room for `bytes`; false when the queue would exceed `limit`.
    func reserve(_ bytes: Int, limit: Int) -> Bool {
        let total = queued.wrappingAdd(bytes, ordering: .relaxed).newValue
        if total > limit, total != bytes {
            queued.wrappingSubtract(bytes, ordering: .relaxed)
            return false
        }
        return true
    }

    func release(_ bytes: Int) { queued.wrappingSubtract(bytes, ordering: .relaxed) }

    var waiting: Int { queued.load(ordering: .relaxed) }
}

/// One WebSocket as the service thread sees it.
final class SocketState {
    let id: Int
    /// The listener that accepted it, or nil for a client connection.
    let listener: Int?
    let limits: SocketLimits
    let sink: @Sendable (WebSocketEvent) -> Void
    let budget: SendBudget
    var wsi: OpaquePointer?
    var opened = false
    var outgoing: [[UInt8]] = []
    var incoming: [UInt8] = []
    var discardingMessage = false
    var binaryMessage = false
    var closeRequest: (code: UInt16, reason: String)?
    /// A streaming client's feed (WebSocketFeed.swift) and the buffer its messages are written from.
    var feed: (any WebSocketFeed)?
    private var feedStorage: UnsafeMutableRawBufferPointer?
    var peerClose: (code: UInt16?, reason: String)?
    var failure: WebSocketError?
    /// The host and port a client connects to, for messages.
    var host = ""
    var port = 0
    /// OpenSSL showed us the server's certificate (TLS got that far).
    var certificateSeen = false
    let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    private var keptStrings: [UnsafeMutablePointer<CChar>] = []
    private var finished = false

    init(id: Int, listener: Int?, options: SocketLimits, sink: @escaping @Sendable (WebSocketEvent) -> Void, budget: SendBudget) {
        self.id = id
        self.listener = listener
        self.limits = options
        self.sink = sink
        self.budget = budget
        retryPolicy = .allocate(capacity: 1)
        retryPolicy.initialize(to: lws_retry_bo_t())
    }

    deinit {
        keptStrings.forEach { free($0) }
        retryPolicy.deallocate()
        feedStorage?.deallocate()
    }

    func feedBuffer(capacity: Int) -> UnsafeMutableRawBufferPointer {
        if let feedStorage { return feedStorage }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        feedStorage = storage
        return storage
    }

    /// A C copy of `text` that lives as long as this socket.
    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        keptStrings.append(copy)
        return UnsafePointer(copy)
    }

    /// Reports the end once; later calls are ignored.
    func finish(_ closure: WebSocketClosure) {
        guard !finished else { return }
        finished = true
        wsi = nil
        budget.release(budget.waiting)
        sink(.closed(closure))
    }
}

/// One listening vhost as the service thread sees it.
final class ListenerState {
    let id: Int
    let limits: SocketLimits
    let sink: @Sendable (WebSocketServerEvent) -> Void
    /// One vhost per address listened on.
    var vhosts: [OpaquePointer] = []
    var addresses: [String] = []
    let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
    let httpResources: [String: HTTPResource]
    /// The "/" mount that sends HTTP requests to our callback; lws reads it for the vhost's life.
    let mount: UnsafeMutablePointer<lws_http_mount>
    private var keptStrings: [UnsafeMutablePointer<CChar>] = []

    init(id: Int, options: WebSocketServerOptions, sink: @escaping @Sendable (WebSocketServerEvent) -> Void) {
        self.id = id
        self.limits = SocketLimits(maximumMessageSize: options.maximumMessageSize, maximumQueuedBytes: options.maximumQueuedBytes)
        self.sink = sink
        retryPolicy = .allocate(capacity: 1)
        var policy = lws_retry_bo_t()
        policy.secs_since_valid_ping = options.pingAfterIdleSeconds
        policy.secs_since_valid_hangup = options.dropAfterIdleSeconds
        retryPolicy.initialize(to: policy)
        httpResources = Dictionary(options.httpResources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        mount = .allocate(capacity: 1)
        mount.initialize(to: lws_http_mount())
    }

    func keep(_ text: String?) -> UnsafePointer<CChar>? {
        guard let text, let copy = strdup(text) else { return nil }
        keptStrings.append(copy)
        return UnsafePointer(copy)
    }

    deinit {
        keptStrings.forEach { free($0) }
        retryPolicy.deallocate()
        mount.deallocate()
    }
}

struct ClientSocketRequest {
    let id: Int
    let url: WebSocketURL
    let options: WebSocketOptions
    let limits: SocketLimits
    let budget: SendBudget
    var feed: (any WebSocketFeed)? = nil
    let sink: @Sendable (WebSocketEvent) -> Void
}

struct ListeningInfo {
    let port: Int
    let addresses: [String]
}

struct ListenRequest {
    let id: Int
    let options: WebSocketServerOptions
    let sink: @Sendable (WebSocketServerEvent) -> Void
    let reply: @Sendable (Result<ListeningInfo, WebSocketError>) -> Void
}

/// The protocol table every vhost shares: one callback for all sockets.
enum LibWebSocketsProtocols {
    static let janus = "janus-protocol"
    /// SIP's UDP, TCP and TLS sockets bind to this one; it never takes part in a WebSocket handshake.
    static let rawSIP = "parley-sip-raw"
    /// RFC 7118's subprotocol: a listener accepts it (the tests' SIP-over-WebSocket peers), a client asks for it.
    static let sip = "sip"

    /// Allocated once and never freed: libwebsockets holds it for the context's life.
    /// Unsafe: libwebsockets keeps a pointer to this C table for the context's life; it is written once, here.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<lws_protocols> = {
        let names = ["parley", janus, rawSIP, sip]
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: names.count + 1)
        for (index, name) in names.enumerated() {
            var entry = lws_protocols()
            entry.name = UnsafePointer(strdup(name))
            entry.callback = { wsi, reason, user, input, length in
                WebSocketService.dispatch(wsi, reason, user, input, length)
            }
            entry.rx_buffer_size = 65_536
            table[index] = entry
        }
        table[names.count] = lws_protocols()
        return table
    }()

    /// The local protocol a client socket binds to for the subprotocol it asks for.
    static func localName(for subprotocol: String) -> String {
        subprotocol == janus || subprotocol == sip ? subprotocol : "parley"
    }
}
