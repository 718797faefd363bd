import Foundation

/// A real coturn in the public namespace of a NAT topology, with long-term credentials and a
/// self-signed certificate for TLS; the test writes its config and stops it.
final class Coturn: @unchecked Sendable {
    static let username = "parley"
    static let password = "turn-Secret-42"
    static let realm = "parley.test"
    let directory: URL
    let certificate: String
    private let process: Process
    private let address: String

    init(in topology: Topology, address: String = Topology.publicServer) throws {
        self.address = address
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-coturn-\(topology.id)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try Shell.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=\(address)", "-addext", "subjectAltName=IP:\(address)", "-keyout", key, "-out", certificate,
        ])
        let config = """
        listening-ip=\(address)
        relay-ip=\(address)
        listening-port=3478
        tls-listening-port=5349
        min-port=49152
        max-port=65535
        lt-cred-mech
        fingerprint
        user=\(Self.username):\(Self.password)
        realm=\(Self.realm)
        cert=\(certificate)
        pkey=\(key)
        no-cli
        no-dtls
        no-multicast-peers
        pidfile=\(directory.appendingPathComponent("turnserver.pid").path)
        log-file=\(directory.appendingPathComponent("turn.log").path)
        simple-log
        """
        let configPath = directory.appendingPathComponent("turnserver.conf").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", topology.namespace("pub"), "turnserver", "-c", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntilListening(topology)
    }

    /// Bounded: coturn opens its ports within a second or two.
    private func waitUntilListening(_ topology: Topology) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let tcp = (try? topology.exec("pub", ["ss", "-Hltn", "sport", "=", ":5349"])) ?? ""
            let udp = (try? topology.exec("pub", ["ss", "-Hlun", "sport", "=", ":3478"])) ?? ""
            if !tcp.isEmpty && !udp.isEmpty { return }
            guard process.isRunning else { throw TestBedError.peerExited("turnserver") }
            usleep(50_000)
        }
        throw TestBedError.timeout("coturn to listen")
    }

    func server(_ url: String, password: String = Coturn.password) -> [String: String] {
        ["url": url, "username": Self.username, "credential": password]
    }

    func stop() {
        // coturn may take its time over SIGTERM; nothing of it needs to survive.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
