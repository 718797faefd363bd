import Foundation

/// The TCP connections a generation's libnice agent opened to its TURN servers (over TCP, or to
/// the local TLS tunnel for `turns:`). libnice hands out no socket for a relayed candidate and
/// its base address keeps port 0, so they are found another way: libnice opens them inside
/// `nice_agent_gather_candidates`, on the network thread where every agent of the process
/// gathers, so the TCP sockets that appear across that call are this agent's; those whose peer
/// turns out to be one of the TURN servers are kept, each pinned to its local and peer address
/// so that a descriptor number reused after a close is not taken for it.
///
/// Only on the network thread.
struct RelayStreams {
    private let servers: Set<SocketName>
    private var unconfirmed: Set<Int32>
    private var pinned: [Int32: (local: SocketName, peer: SocketName)] = [:]

    /// The process's open TCP sockets.
    static func openStreams() -> Set<Int32> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return Set(names.compactMap { Int32($0) }.filter(isTCP))
    }

    init(opened: Set<Int32>, servers: Set<SocketName>) {
        self.unconfirmed = opened
        self.servers = servers
    }

    /// The connections to the TURN servers that are open now.
    mutating func descriptors() -> [Int32] {
        // A connect still under way has no peer yet; it is looked at again on the next call.
        for descriptor in unconfirmed {
            guard Self.isTCP(descriptor), let local = SocketName.local(descriptor) else {
                unconfirmed.remove(descriptor)
                continue
            }
            guard let peer = SocketName.peer(descriptor) else { continue }
            unconfirmed.remove(descriptor)
            if servers.contains(peer) { pinned[descriptor] = (local, peer) }
        }
        for (descriptor, names) in pinned where SocketName.local(descriptor) != names.local || SocketName.peer(descriptor) != names.peer {
            pinned[descriptor] = nil
        }
        return Array(pinned.keys)
    }

    private static func isTCP(_ descriptor: Int32) -> Bool {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else { return false }
        return SocketName.local(descriptor) != nil
    }
}
