import Foundation

/// A throwaway CA, a server certificate it signed for 127.0.0.1, an unrelated second CA, and a
/// client certificate from each CA (mutual TLS).
public struct TestCertificates {
    public let directory: URL
    public var caPath: String { directory.appendingPathComponent("ca.pem").path }
    public var otherCAPath: String { directory.appendingPathComponent("other-ca.pem").path }
    public var serverCertificatePath: String { directory.appendingPathComponent("server.pem").path }
    public var serverKeyPath: String { directory.appendingPathComponent("server.key").path }
    /// A client certificate `ca.pem` signed, and its key.
    public var clientCertificatePath: String { directory.appendingPathComponent("client.pem").path }
    public var clientKeyPath: String { directory.appendingPathComponent("client.key").path }
    /// A client certificate `other-ca.pem` signed, and its key.
    public var otherClientCertificatePath: String { directory.appendingPathComponent("other-client.pem").path }
    public var otherClientKeyPath: String { directory.appendingPathComponent("other-client.key").path }

    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let openssl = "/usr/bin/openssl"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        for name in ["ca", "other-ca"] {
            try await run(openssl, ["req", "-x509"] + ec + ["-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=Parley test \(name)"],
                    in: directory)
        }
        try await run(openssl, ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: directory)
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(to: directory.appendingPathComponent("san.ext"), atomically: true, encoding: .utf8)
        try await run(openssl, ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                          "-days", "2", "-extfile", "san.ext"], in: directory)
        for (name, ca) in [("client", "ca"), ("other-client", "other-ca")] {
            try await run(openssl, ["req"] + ec + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=alice"], in: directory)
            try await run(openssl, ["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial", "-out", "\(name).pem",
                              "-days", "2"], in: directory)
        }
        return TestCertificates(directory: directory)
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
