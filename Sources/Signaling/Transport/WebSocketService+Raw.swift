import CWebSockets
import Foundation

/// SIP over UDP and TCP on the same service thread as every WebSocket (docs/sip.md,
/// "Transports"): a UDP socket is adopted as a raw descriptor whose readiness libwebsockets
/// reports and which this thread reads and writes itself; a TCP stream is libwebsockets' raw
/// client, which resolves, connects and buffers partial writes; a TLS stream runs a
/// `RawTLSSession` over it once it is connected.
extension WebSocketService {
    /// Datagrams read per readiness callback, so one flooding peer cannot hold the thread.
    static let datagramsPerWake = 64

    func openRaw(_ request: RawSocketRequest) {
        let socket = RawSocketState(request)
        switch request.kind {
        case .datagram(let descriptor):
            rawSockets[socket.id] = socket
            var fd = lws_sock_file_fd_type()
            fd.filefd = descriptor
            guard let wsi = lws_adopt_descriptor_vhost(clientVhost, LWS_ADOPT_RAW_FILE_DESC, fd, LibWebSocketsProtocols.rawSIP, nil) else {
                // lws closed the descriptor already (lws-adopt.h).
                rawSockets[socket.id] = nil
                socket.finish(.connectFailed("libwebsockets could not watch the UDP socket"))
                return
            }
            socket.wsi = wsi
            lws_set_opaque_user_data(wsi, UnsafeMutableRawPointer(bitPattern: socket.id))
            socket.opened = true
            socket.sink(Self.opened(descriptor))
        case .stream(let host, let port, let connectTimeout, let verification, let certificate):
            if let verification {
                do { socket.tls = try RawTLSSession(host: host, context: try sipTLSContext(verification, certificate: certificate)) } catch {
                    socket.finish(SIPTransportError(error))
                    return
                }
            }
            rawSockets[socket.id] = socket
            var info = lws_client_connect_info()
            info.context = context
            info.vhost = clientVhost
            info.address = socket.keep(host)
            info.host = socket.keep(host)
            info.port = Int32(port)
            info.method = socket.keep("RAW")
            info.local_protocol_name = socket.keep(LibWebSocketsProtocols.rawSIP)
            info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: socket.id)
            let created = lws_client_connect_via_info(&info)
            if created == nil, let socket = rawSockets.removeValue(forKey: socket.id) {
                socket.finish(socket.failure.map(SIPTransportError.init) ?? .connectFailed("could not start connecting to \(ConnectProbe.address(host: host, port: port))"))
                return
            }
            socket.wsi = created
            let timeout = min(max(connectTimeout, .zero), WebSocketOptions.maximumConnectTimeout)
            let id = socket.id
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout.inSeconds) { [self] in
                submit(.expireRaw(socket: id, after: timeout))
            }
        }
    }

    private func sipTLSContext(_ verification: TLSVerification, certificate: TLSClientCertificate?) throws(WebSocketError) -> OpaquePointer {
        let key = SIPTLSContextKey(verification: verification, certificate: certificate)
        if let context = sipTLSContexts[key] { return context }
        let context = try RawTLSSession.makeContext(verification, certificate: certificate)
        sipTLSContexts[key] = context
        return context
    }

    func sendRaw(_ bytes: [UInt8], on id: Int) {
        guard let socket = rawSockets[id], let wsi = socket.wsi, !socket.closeRequested else { return }
        if let descriptor = socket.descriptor {
            // A datagram leaves at once or is lost, as UDP may lose it anyway; the transaction
            // layer retransmits (docs/sip.md, "Transactions").
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == ECONNREFUSED { refuse(socket, wsi: wsi) }
            return
        }
        if let tls = socket.tls {
            guard tls.established else {
                socket.sentBeforeHandshake.append(bytes)
                return
            }
            tls.encrypt(bytes)
            flushTLS(socket, tls, wsi: wsi)
            return
        }
        var framed = [UInt8](repeating: 0, count: Int(parley_lws_pre()))
        framed.append(contentsOf: bytes)
        socket.outgoing.append(framed)
        if socket.opened { lws_callback_on_writable(wsi) }
    }

    func closeRaw(_ id: Int) {
        guard let socket = rawSockets[id], let wsi = socket.wsi else { return }
        socket.closeRequested = true
        if socket.opened, socket.descriptor == nil {
            // Whatever was queued goes out first (with TLS, then close_notify), then the writable callback closes.
            if let tls = socket.tls {
                tls.shutdown()
                flushTLS(socket, tls, wsi: wsi)
            }
            lws_callback_on_writable(wsi)
        } else {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
    }

    /// Ends a stream that has not connected within its timeout.
    func expireRaw(_ id: Int, after timeout: Duration) {
        guard let socket = rawSockets[id], !socket.ready, let wsi = socket.wsi else { return }
        socket.failure = .connectTimedOut(after: timeout)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    func rawSocket(for wsi: OpaquePointer) -> RawSocketState? {
        guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
        return rawSockets[Int(bitPattern: raw)]
    }

    func handleRaw(_ socket: RawSocketState, wsi: OpaquePointer, reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_RAW_CONNECTED:
            socket.wsi = wsi
            socket.opened = true
            if let tls = socket.tls { return advanceHandshake(socket, tls, wsi: wsi) }
            socket.sink(Self.opened(Int32(lws_get_socket_fd(wsi))))
            if !socket.outgoing.isEmpty || socket.closeRequested { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_RAW_RX:
            guard let input, length > 0 else { break }
            let bytes = UnsafeRawBufferPointer(start: input, count: length)
            if let tls = socket.tls { return receiveTLS(socket, tls, bytes, wsi: wsi) }
            socket.sink(.received(Array(bytes)))
        case LWS_CALLBACK_RAW_RX_FILE:
            return readDatagrams(socket, wsi: wsi)
        case LWS_CALLBACK_RAW_WRITEABLE:
            return writeStream(socket, wsi: wsi)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            rawSockets[socket.id] = nil
            socket.finishConnect(failure: socket.failure ?? .connectFailed(text))
        case LWS_CALLBACK_RAW_CLOSE, LWS_CALLBACK_RAW_CLOSE_FILE, LWS_CALLBACK_WSI_DESTROY:
            rawSockets[socket.id] = nil
            if socket.failure == nil, !socket.closeRequested, let descriptor = socket.descriptor, Self.pendingError(descriptor) == ECONNREFUSED {
                socket.failure = Self.portUnreachable
            }
            if socket.failure == nil, !socket.closeRequested, socket.opened, socket.tls?.established == false {
                socket.failure = .tlsFailed("the server closed the connection during the handshake")
            }
            if !socket.opened {
                socket.finish(socket.failure.map(SIPTransportError.init) ?? .connectFailed("the connection closed before it was established"))
            } else if let failure = socket.failure {
                socket.finish(SIPTransportError(failure))
            } else {
                socket.finish(socket.closeRequested ? nil : .lost("the server closed the connection"))
            }
        default:
            break
        }
        return 0
    }

    /// Ciphertext from the socket: the handshake's next step, then the plaintext of whole records.
    private func receiveTLS(_ socket: RawSocketState, _ tls: RawTLSSession, _ bytes: UnsafeRawBufferPointer, wsi: OpaquePointer) -> Int32 {
        tls.feed(bytes)
        if !tls.established {
            guard advanceHandshake(socket, tls, wsi: wsi) == 0 else { return -1 }
            guard tls.established else { return 0 }
        }
        do {
            // The server's close_notify: the socket closes, and the flow ends as lost.
            guard try tls.decrypt({ socket.sink(.received($0)) }) else { return -1 }
        } catch {
            socket.failure = error
            return -1
        }
        flushTLS(socket, tls, wsi: wsi)
        return 0
    }

    /// The handshake's next step; once it completes the flow opens and what was sent meanwhile
    /// is encrypted. A failed handshake closes the socket with the reason.
    private func advanceHandshake(_ socket: RawSocketState, _ tls: RawTLSSession, wsi: OpaquePointer) -> Int32 {
        do {
            if try tls.handshake() {
                socket.sink(Self.opened(Int32(lws_get_socket_fd(wsi))))
                socket.sentBeforeHandshake.forEach(tls.encrypt)
                socket.sentBeforeHandshake = []
            }
        } catch {
            socket.failure = error
            return -1
        }
        flushTLS(socket, tls, wsi: wsi)
        return 0
    }

    /// Queues the records the session wrote and asks to write them.
    private func flushTLS(_ socket: RawSocketState, _ tls: RawTLSSession, wsi: OpaquePointer) {
        guard let records = tls.drain(headroom: Int(parley_lws_pre())) else { return }
        socket.outgoing.append(records)
        lws_callback_on_writable(wsi)
    }

    private static func opened(_ descriptor: Int32) -> RawSocketEvent {
        .opened(localAddress: SocketEndpoints.address(descriptor, getsockname), localPort: SocketEndpoints.port(descriptor, getsockname))
    }

    private func readDatagrams(_ socket: RawSocketState, wsi: OpaquePointer) -> Int32 {
        guard let descriptor = socket.descriptor else { return -1 }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<Self.datagramsPerWake {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == ECONNREFUSED { return refuse(socket, wsi: wsi) }
                return 0
            }
            socket.sink(.received(Array(buffer[..<count])))
        }
        return 0
    }

    /// An ICMP port unreachable, which a connected UDP socket reports on its next call: nothing
    /// listens where the flow sends.
    @discardableResult
    private func refuse(_ socket: RawSocketState, wsi: OpaquePointer) -> Int32 {
        socket.failure = Self.portUnreachable
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        return 0
    }

    /// Raw bytes are written as LWS_WRITE_HTTP, which lws-write.h names LWS_WRITE_RAW: a macro Swift does not import.
    private static let portUnreachable = WebSocketError.connectFailed("nothing listens there (ICMP port unreachable)")

    /// The error a socket holds and has not reported yet (SO_ERROR), which reading clears.
    private static func pendingError(_ descriptor: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error : 0
    }

    private func writeStream(_ socket: RawSocketState, wsi: OpaquePointer) -> Int32 {
        guard !socket.outgoing.isEmpty else { return socket.closeRequested ? -1 : 0 }
        var next = socket.outgoing.removeFirst()
        let pre = Int(parley_lws_pre())
        let written = next.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, $0.count - pre, LWS_WRITE_HTTP) }
        if written < 0 { return -1 }
        if !socket.outgoing.isEmpty || socket.closeRequested { lws_callback_on_writable(wsi) }
        return 0
    }
}
