import Dispatch
import Glibc
import Synchronization

/// One connection to a SIP server: a connected UDP socket, a TCP or TLS stream, or a WebSocket
/// with the `sip` subprotocol (RFC 7118). Every socket is serviced by the one signalling thread
/// (`WebSocketService`); no flow has a thread of its own. Received bytes are parsed there, with
/// `SIPLimits`, and arrive on `events` as whole messages.
///
/// Send only after `.opened`: a UDP flow resolves its server first, and what is sent before it has
/// a socket is dropped (the transaction layer would retransmit it, but the first try is lost).
package final class SIPFlow: Sendable {
    package let server: SIPServerAddress
    package let events: AsyncStream<SIPFlowEvent>
    private let continuation: AsyncStream<SIPFlowEvent>.Continuation
    /// The raw socket's identifier on the service thread (UDP, TCP, TLS).
    private let rawSocket: Int
    /// Whether the raw socket was handed to the service thread yet: a UDP flow closed while its
    /// server's name is still being resolved must not open afterwards (`RawOpening`).
    private let opening = RawOpening()
    private let webSocket: WebSocketConnection?
    /// Sends the CRLF keep-alives of a stream or WebSocket flow until the flow closes.
    private let keepAlive: Task<Void, Never>?

    package init(server: SIPServerAddress, options: SIPFlowOptions = SIPFlowOptions()) {
        let (events, continuation) = AsyncStream.makeStream(of: SIPFlowEvent.self)
        self.server = server
        self.events = events
        self.continuation = continuation
        let service = WebSocketService.shared
        rawSocket = service.makeIdentifier()
        switch server.transport {
        case .ws, .wss:
            var webOptions = WebSocketOptions()
            webOptions.subprotocol = "sip"
            webOptions.connectTimeout = options.connectTimeout
            webOptions.tls = options.tls
            webOptions.clientCertificate = options.clientCertificate
            webOptions.maximumMessageSize = options.limits.maximumMessageSize
            let url = server.webSocketURL ?? WebSocketURL(secure: server.transport == .wss, host: server.host, port: server.port, path: "/")
            let connection = WebSocketConnection(url: url, options: webOptions)
            webSocket = connection
            // Unstructured: the WebSocket's events are pumped into the flow's for as long as the connection lives.
            Task { [continuation, limits = options.limits] in
                for await event in connection.events { Self.forward(event, limits: limits, to: continuation) }
                continuation.finish()
            }
        case .udp:
            webSocket = nil
            let id = rawSocket
            let sink = Self.rawSink(id: id, stream: false, limits: options.limits, continuation: continuation)
            DispatchQueue.global().async { [opening] in
                switch Self.connectedDatagramSocket(host: server.host, port: server.port) {
                case .success(let descriptor):
                    guard opening.state.compareExchange(expected: RawOpening.pending, desired: RawOpening.submitted, ordering: .acquiringAndReleasing).exchanged else {
                        Glibc.close(descriptor)
                        continuation.yield(.closed(nil))
                        continuation.finish()
                        return
                    }
                    service.submit(.openRaw(RawSocketRequest(id: id, kind: .datagram(descriptor: descriptor), sink: sink)))
                case .failure(let error):
                    continuation.yield(.closed(error))
                    continuation.finish()
                }
            }
        case .tcp, .tls:
            webSocket = nil
            let tls = server.transport == .tls ? options.tls : nil
            let kind = RawSocketKind.stream(host: server.host, port: server.port, connectTimeout: options.connectTimeout, tls: tls,
                                            certificate: options.clientCertificate)
            let sink = Self.rawSink(id: rawSocket, stream: true, limits: options.limits, continuation: continuation)
            opening.state.store(RawOpening.submitted, ordering: .releasing)
            service.submit(.openRaw(RawSocketRequest(id: rawSocket, kind: kind, sink: sink)))
        }
        keepAlive = Self.keepingAlive(transport: server.transport, every: options.keepAliveInterval, rawSocket: rawSocket, webSocket: webSocket)
    }

    private static func keepingAlive(transport: SIPTransport, every interval: Duration?, rawSocket: Int, webSocket: WebSocketConnection?) -> Task<Void, Never>? {
        guard transport.isReliable, let interval, interval > .zero else { return nil }
        // Unstructured: the keep-alive runs for the flow's life; the flow cancels it when it closes.
        return Task {
            while (try? await Task.sleep(for: interval)) != nil {
                if let webSocket {
                    try? webSocket.send(SIPFlow.keepAliveText)
                } else {
                    WebSocketService.shared.submit(.sendRaw(socket: rawSocket, bytes: Array(SIPFlow.keepAliveText.utf8)))
                }
            }
        }
    }

    static let keepAliveText = "\r\n\r\n"


    deinit { keepAlive?.cancel() }

    /// Queues `message` (serialized as it is: a received message unchanged goes out byte for byte).
    package func send(_ message: SIPMessage) throws(SIPTransportError) {
        try send(bytes: message.serialized)
    }

    /// An RFC 5626 keep-alive: a double CRLF, which the server answers with one CRLF.
    package func sendKeepAlive() {
        try? send(bytes: Array(Self.keepAliveText.utf8))
    }

    package func close() {
        keepAlive?.cancel()
        if let webSocket {
            webSocket.close()
        } else if opening.state.exchange(RawOpening.closed, ordering: .acquiringAndReleasing) == RawOpening.submitted {
            WebSocketService.shared.submit(.closeRaw(socket: rawSocket))
        }
    }

    private func send(bytes: [UInt8]) throws(SIPTransportError) {
        guard let webSocket else {
            WebSocketService.shared.submit(.sendRaw(socket: rawSocket, bytes: bytes))
            return
        }
        do {
            try webSocket.send(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw SIPTransportError(error)
        }
    }
}

extension SIPFlow {
    /// Turns a raw socket's events into flow events, on the service thread. A stream's bytes go
    /// through one framer, which only that thread touches.
    private static func rawSink(id: Int, stream: Bool, limits: SIPLimits, continuation: AsyncStream<SIPFlowEvent>.Continuation) -> @Sendable (RawSocketEvent) -> Void {
        let framer = stream ? StreamCutter(limits: limits) : nil
        return { event in
            switch event {
            case .opened(let address, let port):
                continuation.yield(.opened(localAddress: address, localPort: port))
            case .received(let bytes):
                if let framer {
                    framer.cut(bytes, into: continuation)
                    // The framing is lost: nothing after the bad message can be cut, so the stream ends.
                    if framer.failure != nil { WebSocketService.shared.submit(.closeRaw(socket: id)) }
                } else {
                    deliverWhole(bytes, limits: limits, to: continuation)
                }
            case .closed(let error):
                continuation.yield(.closed(framer?.failure.map(SIPTransportError.framingLost) ?? error))
                continuation.finish()
            }
        }
    }

    private static func forward(_ event: WebSocketEvent, limits: SIPLimits, to continuation: AsyncStream<SIPFlowEvent>.Continuation) {
        switch event {
        case .opened: continuation.yield(.opened(localAddress: nil, localPort: nil))
        case .text(let text): deliverWhole(Array(text.utf8), limits: limits, to: continuation)
        case .refused(let refusal):
            continuation.yield(.malformed(SIPParseError(.messageTooLarge, line: 0, refusal.description)))
        case .closed(let closure):
            if let error = closure.error {
                continuation.yield(.closed(SIPTransportError(error)))
            } else {
                continuation.yield(.closed(closure.initiatedByPeer ? .lost(closure.description) : nil))
            }
        }
    }

    /// One datagram or WebSocket message: a whole SIP message, or a keep-alive (RFC 5626 §3.5.1
    /// over UDP; RFC 7118 leaves it to the WebSocket, and a peer may still send CRLFs).
    private static func deliverWhole(_ bytes: [UInt8], limits: SIPLimits, to continuation: AsyncStream<SIPFlowEvent>.Continuation) {
        if bytes == [0x0D, 0x0A] {
            continuation.yield(.keepAlivePong)
            return
        }
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { return }
        do {
            continuation.yield(.message(try SIPMessage.parse(bytes, limits: limits)))
        } catch {
            continuation.yield(.malformed(error))
        }
    }

    /// A UDP socket connected to the first address of `host`: only that address's datagrams are
    /// received, and an ICMP port unreachable comes back as an error on the socket.
    private static func connectedDatagramSocket(host: String, port: Int) -> Result<Int32, SIPTransportError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { return .failure(.cannotResolve(host: host, reason: String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        let address = list.pointee
        let descriptor = socket(address.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.connectFailed("no UDP socket: \(String(cString: strerror(errno)))")) }
        guard connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            return .failure(.connectFailed("UDP to \(ConnectProbe.address(host: host, port: port)): \(reason)"))
        }
        return .success(descriptor)
    }
}

/// A stream flow's framer, touched only on the service thread.
/// Unchecked: only the service thread's raw-socket callbacks reach it (WebSocketService+Raw.swift).
private final class StreamCutter: @unchecked Sendable {
    private var framer: SIPStreamFramer
    private(set) var failure: SIPParseError?

    init(limits: SIPLimits) { framer = SIPStreamFramer(limits: limits) }

    func cut(_ bytes: [UInt8], into continuation: AsyncStream<SIPFlowEvent>.Continuation) {
        guard failure == nil else { return }
        framer.append(bytes)
        // Bounded: each item consumes bytes, and the buffer holds at most one read plus a partial message.
        while true {
            do {
                switch try framer.next() {
                case nil: return
                case .message(let message): continuation.yield(.message(message))
                case .keepAlivePong: continuation.yield(.keepAlivePong)
                case .keepAlivePing: continue
                }
            } catch {
                failure = error
                return
            }
        }
    }
}

/// Whether a flow's raw socket is still to be opened, handed to the service thread, or closed
/// first; shared by the flow and the task that resolves a UDP server.
private final class RawOpening: Sendable {
    static let pending = 0
    static let submitted = 1
    static let closed = 2
    let state = Atomic<Int>(RawOpening.pending)
}
