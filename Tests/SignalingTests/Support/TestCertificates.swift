import Foundation

struct CommandFailed: Error, CustomStringConvertible {
    let command: String
    let output: String
    var description: String { "\(command) failed: \(output)" }
}

/// Runs a program to completion and returns what it printed; throws when it fails.
/// Waits without blocking a thread: the tests' servers share the small cooperative pool.
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("parley-run-\(UUID().uuidString).out")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let handle = try FileHandle(forWritingTo: output)
    process.standardOutput = handle
    process.standardError = handle
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    try handle.close()
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    guard status == 0 else { throw CommandFailed(command: ([executable] + arguments).joined(separator: " "), output: text) }
    return text
}

/// A throwaway CA, a server certificate it signed for 127.0.0.1, and an unrelated second CA.
struct TestCertificates {
    let directory: URL
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    var otherCAPath: String { directory.appendingPathComponent("other-ca.pem").path }
    var serverCertificatePath: String { directory.appendingPathComponent("server.pem").path }
    var serverKeyPath: String { directory.appendingPathComponent("server.key").path }

    static func make() async throws -> TestCertificates {
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
        return TestCertificates(directory: directory)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
