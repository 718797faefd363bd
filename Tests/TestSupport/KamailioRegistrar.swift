import Foundation
import Glibc

/// The real Kamailio (Debian's, installed by scripts/bootstrap) as a registrar on loopback, with
/// Parley's configuration and users (deploy/kamailio/), on a free port for UDP, TCP and
/// WebSocket, for the Signaling and Parley tests alike, and SIP over TLS on a second port when
/// given a certificate. Stopped, with its children, by `stop`.
public final class KamailioRegistrar {
    public let port: Int
    /// The TLS listener's port, when started with a certificate.
    public let tlsPort: Int?
    /// A second TLS listener's port, when started with a client CA too: it requires a client
    /// certificate that CA signed (mutual TLS), for SIP over TLS and secure WebSocket alike.
    public let mutualTLSPort: Int?
    private let pid: pid_t
    private let runtime: URL

    static var deploy: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/kamailio")
    }

    /// `tlsCertificate`: PEM certificate and key files for a TLS listener on `tlsPort`;
    /// `clientCA`: with it, the CA whose client certificates `mutualTLSPort` requires.
    public init(tlsCertificate: (certificate: String, key: String)? = nil, clientCA: String? = nil) async throws {
        port = try unusedLoopbackPortForTCPAndUDP()
        runtime = FileManager.default.temporaryDirectory.appendingPathComponent("parley-kamailio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        var arguments = ["/usr/sbin/kamailio", "-f", Self.deploy.appendingPathComponent("kamailio.cfg").path, "-DD", "-E", "-Y", runtime.path,
                         "-l", "udp:127.0.0.1:\(port)", "-l", "tcp:127.0.0.1:\(port)",
                         "-A", "USERS_URL=\"text://\(Self.deploy.appendingPathComponent("users").path)\""]
        if let tlsCertificate {
            let tlsPort = try unusedLoopbackPort()
            let mutualTLSPort = try clientCA.map { _ in try unusedLoopbackPort() }
            let configuration = runtime.appendingPathComponent("tls.cfg")
            var text = Self.tlsConfiguration(tlsCertificate)
            if let clientCA, let mutualTLSPort {
                text += Self.mutualTLSConfiguration(tlsCertificate, clientCA: clientCA, port: mutualTLSPort)
                arguments += ["-l", "tls:127.0.0.1:\(mutualTLSPort)"]
            }
            try text.write(to: configuration, atomically: true, encoding: .utf8)
            arguments += ["-l", "tls:127.0.0.1:\(tlsPort)", "-A", "WITH_TLS", "-A", "TLS_CONFIG=\"\(configuration.path)\""]
            self.tlsPort = tlsPort
            self.mutualTLSPort = mutualTLSPort
        } else {
            tlsPort = nil
            mutualTLSPort = nil
        }
        pid = try Self.spawn(arguments)
        let (port, tlsPorts, pid) = (port, [tlsPort, mutualTLSPort].compactMap { $0 }, pid)
        try await waitUntil("Kamailio listening on \(port)", within: 10) {
            kill(pid, 0) == 0 && Self.acceptsTCP(port: port) && tlsPorts.allSatisfy(Self.acceptsTCP)
        }
    }

    /// The tls module's domain for the listener on `port` alone: a client certificate that
    /// `clientCA` signed is required and verified.
    private static func mutualTLSConfiguration(_ files: (certificate: String, key: String), clientCA: String, port: Int) -> String {
        """
        [server:127.0.0.1:\(port)]
        method = TLSv1.2+
        verify_certificate = yes
        require_certificate = yes
        ca_list = \(clientCA)
        certificate = \(files.certificate)
        private_key = \(files.key)

        """
    }

    /// The tls module's configuration (its own INI-like format): our certificate for every
    /// client, none asked of them.
    private static func tlsConfiguration(_ files: (certificate: String, key: String)) -> String {
        """
        [server:default]
        method = TLSv1.2+
        verify_certificate = no
        require_certificate = no
        certificate = \(files.certificate)
        private_key = \(files.key)

        [client:default]
        method = TLSv1.2+
        verify_certificate = no
        require_certificate = no

        """
    }

    /// Kamailio with no signal blocked and its output dropped: a child inherits the spawning
    /// thread's mask, and the test process blocks SIGTERM on some threads, which Kamailio's
    /// main process needs to stop its children.
    private static func spawn(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else { throw CommandFailed(command: "kamailio", output: String(cString: strerror(status))) }
        return pid
    }

    public func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let exited = waitUntil(seconds: 5) { waitpid(self.pid, &status, WNOHANG) == self.pid }
        if !exited {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: runtime)
    }
    private static func acceptsTCP(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
