import Foundation

/// `stun-count` sniffing one namespace's interface: which STUN messages crossed it, by
/// direction and type, while the test did something.
final class STUNCounter: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private var pending = Data()

    init(_ topology: Topology, host: String, seconds: Int) throws {
        let script = Shell.packageRoot.appendingPathComponent("scripts/netns/stun-count").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", topology.namespace(host), script, topology.interface(host), String(seconds)]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line says the socket is bound; nothing before it is counted.
        guard try nextLine()?.contains("listening") == true else { throw TestBedError.peerExited("stun-count") }
    }

    private func nextLine() throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }

    /// Waits for the sniffer's time to run out; returns e.g. ["in 0x0101": 6, "out 0x0001": 6].
    func counts() throws -> [String: Int] {
        guard let line = try nextLine(), let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int] else {
            throw TestBedError.peerExited("stun-count")
        }
        process.waitUntilExit()
        return object
    }
}
