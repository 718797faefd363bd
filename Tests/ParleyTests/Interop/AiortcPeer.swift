import Foundation
import Signaling
import TestSupport
import Locking

/// aiortc (Tests/Interop/aiortc_peer.py) running inside a peer namespace: it answers the offer we
/// write to its stdin; each JSON line it prints is an event here.
final class AiortcPeer: @unchecked Sendable {
    struct Options {
        var tone = 880.0
        var codec = "any"
        /// Seconds of media once connected; then it reports what it heard and exits.
        var duration = 4.0
        var timeout = 25.0
        var jitterMs = 0.0
        var badFingerprint = false
    }

    let events: EventRecorder<JSONValue>
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorLog: URL
    private let lines: AsyncStream<JSONValue>.Continuation
    private let buffer = Lock(Data())

    static let script = InteropBed.packageRoot.appendingPathComponent("Tests/Interop/aiortc_peer.py").path

    init(in namespace: PeerNamespace, options: Options) throws {
        var arguments = ["ip", "netns", "exec", namespace.name, "python3", Self.script, "--tone", String(options.tone), "--codec", options.codec,
                         "--duration", String(options.duration), "--timeout", String(options.timeout)]
        if options.jitterMs > 0 { arguments += ["--jitter-ms", String(options.jitterMs)] }
        if options.badFingerprint { arguments.append("--bad-fingerprint") }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("parley-aiortc-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        lines = continuation
        events = EventRecorder(stream)
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.consume(data)
        }
        try process.run()
    }

    private func consume(_ data: Data) {
        if data.isEmpty {
            output.fileHandleForReading.readabilityHandler = nil
            lines.finish()
            return
        }
        let complete: [Data] = buffer.withLock { buffer in
            buffer.append(data)
            var found: [Data] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                found.append(buffer[buffer.startIndex..<newline])
                buffer.removeSubrange(buffer.startIndex...newline)
            }
            return found
        }
        for line in complete {
            if let value = try? JSONValue.parse(String(decoding: line, as: UTF8.self)) { lines.yield(value) }
        }
    }

    /// Hands aiortc our offer and returns its answer.
    func answer(_ offer: String) async throws -> String {
        let line = JSONValue.object(["sdp": .string(offer)]).serialized + "\n"
        try input.fileHandleForWriting.write(contentsOf: Data(line.utf8))
        let answer = try await event("answer", within: 15)
        guard let sdp = answer["sdp"]?.stringValue else { throw InteropBed.Failure(description: "aiortc's answer has no sdp") }
        return sdp
    }

    /// The next line whose "event" is `name` and that `match` accepts.
    func event(_ name: String, _ what: String? = nil, within seconds: Double = 15,
               where match: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
        do {
            return try await events.next("aiortc \(what ?? name)", within: seconds) { $0["event"]?.stringValue == name && match($0) }
        } catch {
            throw InteropBed.Failure(description: "\(error); aiortc said: \(diagnostics)")
        }
    }

    /// What it printed on stderr (its tracebacks, if any), for failure messages.
    var diagnostics: String {
        String(((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "").suffix(2000))
    }

    func stop() {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errorLog)
    }
}
