import Foundation

public struct CommandFailed: Error, CustomStringConvertible {
    public let command: String
    public let output: String
    public init(command: String, output: String) {
        self.command = command
        self.output = output
    }
    public var description: String { "\(command) failed: \(output)" }
}

/// Runs a program to completion and returns what it printed; throws when it fails.
/// Waits without blocking a thread: the tests' servers share the small cooperative pool.
@discardableResult
public func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> String {
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
