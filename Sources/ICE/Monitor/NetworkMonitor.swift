import CNice
import Foundation

/// Address, link and route changes from the kernel (rtnetlink), as a stream. The socket belongs
/// to the network namespace of the thread that creates the monitor, and is read on the network
/// thread.
package final class NetworkMonitor: Sendable {
    package let events: AsyncStream<NetworkChange>
    private let reader: NetlinkReader

    package init() throws(NetworkMonitorError) {
        let (stream, continuation) = AsyncStream<NetworkChange>.makeStream(bufferingPolicy: .bufferingNewest(256))
        events = stream
        reader = try NetlinkReader(continuation: continuation)
        NetworkLoop.shared.perform { [reader] in reader.attach(to: NetworkLoop.shared.context) }
    }

    deinit { close() }

    package func close() {
        NetworkLoop.shared.perform { [reader] in reader.detach() }
    }
}

/// The netlink socket and its GLib watch. Touched on the network thread after init.
/// Unchecked: the socket, buffer and GLib source are touched only on the network loop thread after init (asserted in debug builds).
final class NetlinkReader: @unchecked Sendable {
    private let descriptor: Int32
    private let continuation: AsyncStream<NetworkChange>.Continuation
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var sourceID: UInt32 = 0
    private var closed = false

    // rtnetlink multicast groups (linux/rtnetlink.h).
    private static let groups: UInt32 = 0x1 /* LINK */ | 0x10 /* IPV4_IFADDR */ | 0x40 /* IPV4_ROUTE */ | 0x100 /* IPV6_IFADDR */ | 0x400 /* IPV6_ROUTE */
    private static let netlinkFamily: Int32 = 16
    private static let routeProtocol: Int32 = 0

    init(continuation: AsyncStream<NetworkChange>.Continuation) throws(NetworkMonitorError) {
        let descriptor = socket(Self.netlinkFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), Self.routeProtocol)
        guard descriptor >= 0 else { throw .socket(errno: errno) }
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        var address = [UInt8](repeating: 0, count: 12)
        address.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt16(Self.netlinkFamily), toByteOffset: 0, as: UInt16.self)
            raw.storeBytes(of: Self.groups, toByteOffset: 8, as: UInt32.self)
        }
        let bound = address.withUnsafeBytes { bind(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12) }
        guard bound == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw .bind(errno: code)
        }
        self.descriptor = descriptor
        self.continuation = continuation
    }

    private typealias WatchHandler = @convention(c) (UnsafeMutablePointer<GIOChannel>?, GIOCondition, gpointer?) -> gboolean

    private static let onReadable: WatchHandler = { _, _, data in
        guard let data else { return 0 }
        return Unmanaged<NetlinkReader>.fromOpaque(data).takeUnretainedValue().drain() ? 1 : 0
    }

    func attach(to context: OpaquePointer) {
        NetworkLoop.shared.assertOnLoopThread("attaching the netlink watch")
        guard !closed, let channel = g_io_channel_unix_new(descriptor) else { return }
        let source = g_io_create_watch(channel, GIOCondition(G_IO_IN.rawValue | G_IO_ERR.rawValue | G_IO_HUP.rawValue))!
        g_io_channel_unref(channel)
        let data = Unmanaged.passRetained(self).toOpaque()
        g_source_set_callback(source, unsafeBitCast(Self.onReadable, to: GSourceFunc.self), data) { data in
            if let data { Unmanaged<NetlinkReader>.fromOpaque(data).release() }
        }
        sourceID = g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Reads every pending datagram; false removes the watch.
    private func drain() -> Bool {
        NetworkLoop.shared.assertOnLoopThread("reading netlink")
        while !closed {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
                // ENOBUFS: the kernel dropped messages; what follows is still good.
                if errno == ENOBUFS { continue }
                return false
            }
            if count == 0 { return true }
            let changes = buffer.withUnsafeBytes { bytes in
                NetlinkParser.changes(in: UnsafeRawBufferPointer(rebasing: bytes[..<count]), interfaceName: Self.name(of:))
            }
            for change in changes { continuation.yield(change) }
        }
        return false
    }

    private static func name(of index: Int32) -> String? {
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(bitPattern: index), &name) != nil else { return nil }
        return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    func detach() {
        NetworkLoop.shared.assertOnLoopThread("closing the netlink watch")
        guard !closed else { return }
        closed = true
        if sourceID != 0, let source = g_main_context_find_source_by_id(NetworkLoop.shared.context, sourceID) {
            g_source_destroy(source)
        }
        Glibc.close(descriptor)
        continuation.finish()
    }
}
