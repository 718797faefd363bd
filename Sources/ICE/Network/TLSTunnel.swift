import CNice
import Foundation
import Logging
import Locking

/// libnice's "TURN over TLS" is a fake handshake for Google and Microsoft servers, so `turns:`
/// goes through this: a listener on 127.0.0.1 whose every connection is spliced to a real TLS
/// connection (GIO, verified against the system's or the configured trust anchors) to the
/// server. libnice then speaks TURN over TCP to the listener. Lives on the network thread.
/// Unchecked: GIO objects confined to the network loop thread that made them (asserted in debug builds).
final class TLSTunnel: @unchecked Sendable {
    let server: ICEServer
    let localPort: UInt16
    private let service: UnsafeMutableRawPointer
    private let database: UnsafeMutableRawPointer?
    private let logger: Logger
    /// The loop whose thread made the GIO objects and alone may touch them.
    private let loop: NetworkLoop
    private let failure = Lock<String?>(nil)

    /// Why the last TLS connection to the server failed, if one did.
    var lastError: String? { failure.withLock { $0 } }

    private init(server: ICEServer, localPort: UInt16, service: UnsafeMutableRawPointer, database: UnsafeMutableRawPointer?, loop: NetworkLoop, logger: Logger) {
        self.server = server
        self.loop = loop
        self.localPort = localPort
        self.service = service
        self.database = database
        self.logger = logger
    }

    static func open(to resolved: ResolvedServer, caFile: String?, loop: NetworkLoop, logger: Logger) async throws(ICEError) -> TLSTunnel {
        let result: Result<TLSTunnel, ICEError> = await withCheckedContinuation { continuation in
            loop.perform {
                continuation.resume(returning: Result { () throws(ICEError) in try make(resolved.server, caFile: caFile, loop: loop, logger: logger) })
            }
        }
        return try result.get()
    }

    private static func make(_ server: ICEServer, caFile: String?, loop: NetworkLoop, logger: Logger) throws(ICEError) -> TLSTunnel {
        loop.assertOnLoopThread("opening a TLS tunnel")
        let name = server.description
        guard g_tls_backend_supports_tls(g_tls_backend_get_default()) != 0 else {
            throw .tlsTunnelFailed(server: name, reason: "GLib has no TLS backend (install glib-networking)")
        }
        var database: UnsafeMutableRawPointer?
        if let caFile {
            var error: UnsafeMutablePointer<GError>?
            guard let loaded = g_tls_file_database_new(caFile, &error) else {
                throw .tlsTunnelFailed(server: name, reason: "cannot load trust anchors from \(caFile): \(GErrorText.take(error))")
            }
            database = UnsafeMutableRawPointer(loaded)
        }
        let service = g_socket_service_new()!
        let loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4)
        let bindAddress = g_inet_socket_address_new(loopback, 0)
        g_object_unref(loopback)
        var effective: UnsafeMutablePointer<GSocketAddress>?
        var error: UnsafeMutablePointer<GError>?
        let listener = UnsafeMutablePointer<GSocketListener>(OpaquePointer(service))
        let added = g_socket_listener_add_address(listener, bindAddress, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &effective, &error)
        g_object_unref(bindAddress)
        guard added != 0, let effective else {
            g_object_unref(service)
            if let database { g_object_unref(database) }
            throw .tlsTunnelFailed(server: name, reason: "cannot listen on 127.0.0.1: \(GErrorText.take(error))")
        }
        let port = g_inet_socket_address_get_port(UnsafeMutablePointer<GInetSocketAddress>(OpaquePointer(effective)))
        g_object_unref(effective)
        let tunnel = TLSTunnel(server: server, localPort: port, service: UnsafeMutableRawPointer(service), database: database, loop: loop, logger: logger)
        let data = Unmanaged.passRetained(tunnel).toOpaque()
        g_signal_connect_data(gpointer(service), "incoming", unsafeBitCast(onIncoming, to: GCallback.self), data, { data, _ in
            if let data { Unmanaged<TLSTunnel>.fromOpaque(data).release() }
        }, GConnectFlags(0))
        g_socket_service_start(service)
        return tunnel
    }

    /// On the network thread.
    func close() {
        loop.assertOnLoopThread("closing a TLS tunnel")
        let service = UnsafeMutablePointer<GSocketService>(OpaquePointer(self.service))
        g_socket_service_stop(service)
        g_socket_listener_close(UnsafeMutablePointer<GSocketListener>(OpaquePointer(service)))
        g_signal_handlers_disconnect_matched(gpointer(service), G_SIGNAL_MATCH_ID, g_signal_lookup("incoming", g_socket_service_get_type()), 0, nil, nil, nil)
        g_object_unref(gpointer(service))
        if let database { g_object_unref(database) }
    }

    private typealias IncomingHandler = @convention(c) (gpointer?, UnsafeMutablePointer<GSocketConnection>?, gpointer?, gpointer?) -> gboolean
    private typealias ClientEventHandler = @convention(c) (gpointer?, GSocketClientEvent, OpaquePointer?, UnsafeMutablePointer<GIOStream>?, gpointer?) -> Void

    private static let onIncoming: IncomingHandler = { _, connection, _, data in
        guard let connection, let data else { return 0 }
        let tunnel = Unmanaged<TLSTunnel>.fromOpaque(data).takeUnretainedValue()
        tunnel.relay(connection)
        return 1
    }

    /// Sets our trust anchors on the TLS connection the client makes, just before the handshake.
    private static let onClientEvent: ClientEventHandler = { _, event, _, stream, data in
        guard event == G_SOCKET_CLIENT_TLS_HANDSHAKING, let stream, let data else { return }
        g_tls_connection_set_database(UnsafeMutablePointer<GTlsConnection>(OpaquePointer(stream)), UnsafeMutablePointer<GTlsDatabase>(OpaquePointer(data)))
    }

    private func relay(_ incoming: UnsafeMutablePointer<GSocketConnection>) {
        loop.assertOnLoopThread("a TLS tunnel's incoming connection")
        g_object_ref(gpointer(incoming))
        let client = g_socket_client_new()!
        g_socket_client_set_tls(client, 1)
        g_socket_client_set_timeout(client, 10)
        if let database {
            g_signal_connect_data(gpointer(client), "event", unsafeBitCast(Self.onClientEvent, to: GCallback.self), database, nil, GConnectFlags(0))
        }
        let connectable = g_network_address_new(server.host, server.port)
        let pending = Unmanaged.passRetained(PendingRelay(tunnel: self, incoming: incoming, client: client)).toOpaque()
        g_socket_client_connect_async(client, connectable, nil, { _, result, data in
            let pending = Unmanaged<PendingRelay>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let outgoing = g_socket_client_connect_finish(pending.client, result, &error)
            g_object_unref(gpointer(pending.client))
            guard let outgoing else {
                let reason = GErrorText.take(error)
                pending.tunnel.failure.withLock { $0 = reason }
                pending.tunnel.logger.warning("TLS to TURN server failed", metadata: ["server": "\(pending.tunnel.server)", "reason": "\(reason)"])
                g_object_unref(gpointer(pending.incoming))
                return
            }
            pending.tunnel.failure.withLock { $0 = nil }
            let first = UnsafeMutablePointer<GIOStream>(OpaquePointer(pending.incoming))
            let second = UnsafeMutablePointer<GIOStream>(OpaquePointer(outgoing))
            let flags = GIOStreamSpliceFlags(G_IO_STREAM_SPLICE_CLOSE_STREAM1.rawValue | G_IO_STREAM_SPLICE_CLOSE_STREAM2.rawValue)
            let streams = Unmanaged.passRetained(SplicedStreams(first: first, second: second)).toOpaque()
            g_io_stream_splice_async(first, second, flags, G_PRIORITY_DEFAULT, nil, { _, result, data in
                let streams = Unmanaged<SplicedStreams>.fromOpaque(data!).takeRetainedValue()
                g_io_stream_splice_finish(result, nil)
                g_object_unref(gpointer(streams.first))
                g_object_unref(gpointer(streams.second))
            }, streams)
        }, pending)
        g_object_unref(UnsafeMutableRawPointer(connectable))
    }
}

private final class PendingRelay {
    let tunnel: TLSTunnel
    let incoming: UnsafeMutablePointer<GSocketConnection>
    let client: UnsafeMutablePointer<GSocketClient>
    init(tunnel: TLSTunnel, incoming: UnsafeMutablePointer<GSocketConnection>, client: UnsafeMutablePointer<GSocketClient>) {
        self.tunnel = tunnel
        self.incoming = incoming
        self.client = client
    }
}

private final class SplicedStreams {
    let first: UnsafeMutablePointer<GIOStream>
    let second: UnsafeMutablePointer<GIOStream>
    init(first: UnsafeMutablePointer<GIOStream>, second: UnsafeMutablePointer<GIOStream>) {
        self.first = first
        self.second = second
    }
}

enum GErrorText {
    /// The message of `error`, which is then freed.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
