import ArgumentParser
import Foundation
import SDP

/// Reads an SDP file (or `-` for standard input) and reports invalid input the way the CLI
/// promises: `FILE:LINE: reason` on standard error and exit status 2.
struct SDPInput {
    let path: String
    let json: Bool

    /// Exit status for input that is not a valid SDP.
    static let invalidInputStatus: Int32 = 2
    /// Exit status for a file that cannot be read (sysexits EX_NOINPUT).
    static let unreadableStatus: Int32 = 66

    var displayName: String { path == "-" ? "<stdin>" : path }

    /// Parses the input; what the parser tolerated goes to standard error as
    /// `warning: FILE:LINE: message` (the input is still used).
    func load(limits: SDPLimits = .default) throws -> SessionDescription {
        let (sdp, warnings) = try loadReportingWarnings(limits: limits)
        for warning in warnings {
            FileHandle.standardError.write(Data("warning: \(displayName):\(warning.line): \(warning.message)\n".utf8))
        }
        return sdp
    }

    func loadReportingWarnings(limits: SDPLimits = .default) throws -> (SessionDescription, [SDPParseWarning]) {
        let bytes = try read(limit: limits.maxDocumentBytes)
        do {
            let result = try SDPParser(limits: limits).parseReportingWarnings(bytes: bytes)
            return (result.description, result.warnings)
        } catch {
            let location = error.line > 0 ? "\(displayName):\(error.line)" : displayName
            let reason = error.kind == .documentTooLarge ? tooLarge(limit: limits.maxDocumentBytes) : error.reason
            fail("\(location): \(reason)", code: "sdp.\(error.kind.rawValue)", line: error.line > 0 ? error.line : nil, status: Self.invalidInputStatus)
        }
    }

    /// The input's real size against the limit: only `limit + 1` bytes were read, so a file's size
    /// comes from the file system; a stream's is unknown beyond the limit.
    private func tooLarge(limit: Int) -> String {
        let size = path == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let what = size.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        return "document is \(what); the limit for an SDP is \(limit) bytes"
    }

    /// Reads at most `limit + 1` bytes, so an oversized input is refused by the parser's size check
    /// without being held in memory whole.
    private func read(limit: Int) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else {
                let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file"
                fail("\(path): cannot read: \(reason)", code: "input.unreadable", line: nil, status: Self.unreadableStatus)
            }
            handle = file
        }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: limit + 1 - bytes.count) ?? Data()
            } catch {
                fail("\(displayName): cannot read: \(Self.reason(error))", code: "input.unreadable", line: nil, status: Self.unreadableStatus)
            }
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes
    }

    /// The operating system's words for a failed read (a directory, /proc/self/mem), not Foundation's error dump.
    private static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix = underlying ?? ((error as NSError).domain == NSPOSIXErrorDomain ? error as NSError : nil) {
            return posix.code == Int(EISDIR) ? "it is a directory" : String(cString: strerror(Int32(posix.code))).lowercased()
        }
        return "read error"
    }

    func fail(_ message: String, code: String, line: Int?, status: Int32) -> Never {
        if json {
            JSONEvents.emit("error", ErrorPayload(code: code, message: message, line: line))
        }
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(status)
    }
}
