import Glibc
import TestSupport

/// A loopback TCP socket that listens and never accepts: the kernel completes each TCP
/// handshake from its backlog and nothing ever answers the WebSocket upgrade.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try boundLoopbackSocket(SOCK_STREAM, listening: 128)
    }

    deinit { close(descriptor) }
}
