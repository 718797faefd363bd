import Foundation
import Testing
import TestSupport

/// The built `parley` started under `prlimit --nofile=256:4096`, as a stock login starts it with a
/// low soft limit: `switch` and `answer` lift the soft limit to the hard one, and the `clock`
/// event reports it (docs/cli.md, "File descriptors").
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FileDescriptorLimitTests {
    static let soft = 256
    static let hard = 4096

    @Test func fleetCommandsRaiseTheSoftLimitToTheHardOne() throws {
        let parley = try #require(BuiltProducts.parley, "the parley executable is built beside the test bundle")
        let prlimit = try #require(["/usr/bin/prlimit", "/bin/prlimit"].first(where: FileManager.default.isExecutableFile(atPath:)),
                                   "prlimit (util-linux) is installed")
        let limit = "--nofile=\(Self.soft):\(Self.hard)"

        let server = try Child(prlimit, [limit, parley, "switch", "--user", "bot:bot-pw", "--listen", "ws://127.0.0.1:0", "--json"])
        defer { server.stop() }
        let listening = try #require(server.waitForLine(containing: "\"listening\"", seconds: 15), "the switch listens: \(server.output)")
        let url = try #require(Self.json(listening)["url"] as? String)
        let port = try #require(url.split(separator: ":").last.map { $0.filter(\.isNumber) })
        #expect(try Self.openFileLimits(of: server.pid) == [Self.hard, Self.hard], "switch: soft limit raised to the hard one")

        let answer = try Child(prlimit, [limit, parley, "answer", "--server", "ws://127.0.0.1:\(port)", "--login", "bot",
                                         "--play", "silence", "--json", "--clock-interval", "0.2"],
                               environment: ["PARLEY_PASSWORD": "bot-pw"])
        defer { answer.stop() }
        let clockLine = try #require(answer.waitForLine(containing: "\"event\":\"clock\"", seconds: 20), "answer prints a clock event: \(answer.output)")
        #expect(try Self.openFileLimits(of: answer.pid) == [Self.hard, Self.hard], "answer: soft limit raised to the hard one")
        let clock = Self.json(clockLine)
        #expect(clock["openFileLimit"] as? Int == Self.hard)
        let open = try #require(clock["openFiles"] as? Int)
        #expect(open > 3 && open < Self.soft, "descriptors open: \(open)")
    }

    /// Soft and hard "Max open files" of a running process, from /proc/PID/limits.
    static func openFileLimits(of pid: Int32) throws -> [Int] {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        return line.dropFirst("Max open files".count).split(separator: " ").prefix(2).compactMap { Int($0) }
    }

    static func json(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }
}

/// A process whose output goes to a file, read while it runs.
private final class Child {
    let process = Process()
    let outputFile: URL

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-nofile-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputFile)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    var pid: Int32 { process.processIdentifier }
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// The first line holding `text`, polled every 50 ms for at most `seconds`; nil if the
    /// process exits or the time runs out first.
    func waitForLine(containing text: String, seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            guard process.isRunning else { return nil }
            usleep(50_000)
        }
        return nil
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: outputFile)
    }
}
