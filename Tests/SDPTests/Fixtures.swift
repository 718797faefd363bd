import Foundation

/// Locates `fixtures/` from this source file, so tests run from any working directory.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/sdp")

    static func files(in folder: String, withExtension ext: String) -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { directory.appendingPathComponent($0) }
    }

    static func folders(in folder: String) -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    static func text(_ url: URL) throws -> String {
        String(decoding: try bytes(url), as: UTF8.self)
    }

    /// Names of the valid fixtures, for parameterized tests.
    static let validNames: [String] = files(in: "valid", withExtension: "sdp").map(\.lastPathComponent)
    static let malformedNames: [String] = files(in: "malformed", withExtension: "sdp").map(\.lastPathComponent)
    static let lenientNames: [String] = files(in: "lenient", withExtension: "sdp").map(\.lastPathComponent)
}

/// The first line where two SDP texts differ, for readable failures; nil when the bytes are equal.
func firstDifference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
    guard actual != expected else { return nil }
    // Split bytes, not Characters: "\r\n" is one Character in Swift.
    let actualLines = actual.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let expectedLines = expected.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    for index in 0..<max(actualLines.count, expectedLines.count) {
        let got = index < actualLines.count ? String(reflecting: actualLines[index]) : "<end>"
        let want = index < expectedLines.count ? String(reflecting: expectedLines[index]) : "<end>"
        if got != want { return "line \(index + 1): got \(got), expected \(want)" }
    }
    return "same lines, different bytes"
}
