import Foundation

/// What the process holds at one moment, read from /proc: its open descriptors (number and what
/// each points at) and its threads (id and name). The leak check compares two of these.
public struct ProcessResources: Sendable, Equatable {
    /// Descriptor number to its target (`anon_inode:[eventfd]`, a path; an IP socket with its
    /// protocol, state and addresses: `socket:[123] tcp LISTEN 127.0.0.1:8081`).
    public var descriptors: [Int32: String]
    /// Thread id to its name (/proc/self/task/ID/comm, at most 15 characters).
    public var threads: [Int32: String]

    public static func now() -> ProcessResources {
        ProcessResources(descriptors: readDescriptors(), threads: readThreads())
    }

    /// What this snapshot holds that `baseline` did not: a descriptor number that is new or now
    /// points elsewhere, a thread id that is new. A socket is the same socket by its inode,
    /// whatever its addresses read then and now: one that existed before the test and was
    /// connected during it (a leg left by an earlier suite), or that the kernel's socket table
    /// skipped while sockets came and went under the read, is not the test's.
    public func added(since baseline: ProcessResources) -> ProcessResources {
        ProcessResources(
            descriptors: descriptors.filter { baseline.descriptors[$0.key].map(Self.identity) != Self.identity($0.value) },
            threads: threads.filter { baseline.threads[$0.key] == nil })
    }

    /// `socket:[123]` for a socket, whatever follows it; any other target whole.
    public static func identity(_ description: String) -> Substring {
        guard description.hasPrefix("socket:["), let end = description.firstIndex(of: "]") else { return Substring(description) }
        return description[...end]
    }

    public var isEmpty: Bool { descriptors.isEmpty && threads.isEmpty }

    /// Descriptors as `7 -> socket:[123]`, threads as `parley-network (4321)`, sorted.
    public var summary: String {
        let fds = descriptors.sorted { $0.key < $1.key }.map { "\($0.key) -> \($0.value)" }
        let names = threads.sorted { $0.key < $1.key }.map { "\($0.value) (\($0.key))" }
        return "descriptors: [\(fds.joined(separator: ", "))]; threads: [\(names.joined(separator: ", "))]"
    }

    private static func readDescriptors() -> [Int32: String] {
        var result: [Int32: String] = [:]
        let sockets = SocketTable.read()
        // Listing the directory opens one descriptor of its own; it is closed again before the
        // targets are read, so it shows only as a target that no longer resolves.
        let numbers = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in numbers {
            guard let number = Int32(name) else { continue }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else { continue }
            result[number] = sockets.describe(target)
        }
        return result
    }

    private static func readThreads() -> [Int32: String] {
        var result: [Int32: String] = [:]
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for id in ids {
            guard let tid = Int32(id) else { continue }
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8) else { continue }
            result[tid] = name.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return result
    }
}

/// The process's IP sockets by inode, from /proc/self/net, so that a leaked `socket:[inode]` says
/// what it was: a listener, a connection and its peer, a UDP port.
struct SocketTable {
    private var byInode: [String: String] = [:]

    static func read() -> SocketTable {
        var table = SocketTable()
        // The process's network namespace, and the calling thread's when a test moved it.
        for proto in ["tcp", "tcp6", "udp", "udp6"] {
            let tables = ["/proc/self/net/\(proto)", "/proc/thread-self/net/\(proto)"]
            let text = tables.compactMap(procFile).joined(separator: "\n")
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                let state = proto.hasPrefix("tcp") ? (tcpStates[String(fields[3])] ?? String(fields[3])) + " " : ""
                table.byInode[String(fields[9])] = "\(proto) \(state)\(address(fields[1])) -> \(address(fields[2]))"
            }
        }
        // Unix sockets: `Num RefCount Protocol Flags Type St Inode Path`.
        if let text = procFile("/proc/self/net/unix") {
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 6 else { continue }
                table.byInode[String(fields[6])] = "unix" + (fields.count > 7 ? " \(fields[7])" : "")
            }
        }
        return table
    }

    func describe(_ target: String) -> String {
        guard target.hasPrefix("socket:[") else { return target }
        // Not in /proc/net's tables: a socket never bound or connected, or of another family.
        let described = byInode[String(target.dropFirst(8).dropLast())] ?? "unbound or not IP"
        return "\(target) \(described)"
    }

    /// A /proc file whole. Foundation's readers take one page of it: /proc reports a size of 0,
    /// and with more than about 30 sockets the table went on past that page, so a socket further
    /// down read as "unbound or not IP" (which the check allows) one moment and as itself the next.
    static func procFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        // Bounded: 4096 chunks of 64 KiB is far past any socket table a test makes.
        for _ in 0..<4096 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let tcpStates = ["01": "ESTABLISHED", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "0A": "LISTEN", "04": "FIN_WAIT1", "05": "FIN_WAIT2", "09": "LAST_ACK"]

    /// `0100007F:1F91` as `127.0.0.1:8081` (IPv4; IPv6 stays in the kernel's hex).
    private static func address(_ field: Substring) -> String {
        let parts = field.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1], radix: 16) else { return String(field) }
        guard parts[0].count == 8, let raw = UInt32(parts[0], radix: 16) else { return "[\(parts[0])]:\(port)" }
        let bytes = [raw & 0xff, (raw >> 8) & 0xff, (raw >> 16) & 0xff, raw >> 24]
        return bytes.map(String.init).joined(separator: ".") + ":\(port)"
    }
}
