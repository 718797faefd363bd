import Foundation
import Testing

/// docs/architecture.md is the map of the code: its modules, threads, actors, locks and uses of
/// Dispatch. These tests read the sources and the map side by side, so the map fails a test when
/// the code gains an owner it does not name, or when it names something the code no longer has.
@Suite struct ArchitectureMapTests {
    @Test func everyActorIsOnTheMap() throws {
        let map = try ArchitectureSources.map()
        let missing = try ArchitectureSources.declarations(of: "actor").filter { !map.contains("`\($0.name)`") }
        #expect(missing.isEmpty, "actors docs/architecture.md does not name: \(missing.map(\.description))")
    }

    @Test func everyTypeHoldingALockIsOnTheMap() throws {
        let map = try ArchitectureSources.map()
        let holders = try ArchitectureSources.lockHolders()
        #expect(holders.count > 10, "the scan finds the project's locks: \(holders)")
        let missing = holders.filter { !map.contains("`\($0.name)") }
        #expect(missing.isEmpty, "types holding a Lock that docs/architecture.md does not name: \(missing.map(\.description))")
    }

    @Test func everyThreadAndDispatchUseIsOnTheMap() throws {
        let map = try ArchitectureSources.map()
        let sites = try ArchitectureSources.files(matching: [
            "Thread {", "pa_threaded_mainloop_new(", "DispatchQueue(", "DispatchQueue.global", "DispatchSource.",
        ])
        #expect(sites.count >= 5, "the scan finds the threads the process makes: \(sites)")
        let missing = sites.filter { !map.contains($0) }
        #expect(missing.isEmpty, "files that make a thread or use Dispatch and that docs/architecture.md does not name: \(missing)")
    }

    @Test func everyFileTheMapNamesExists() throws {
        let map = try ArchitectureSources.map()
        let paths = ArchitectureSources.matches(of: #"`((?:Sources|Tests)/[A-Za-z0-9_/+.-]+\.swift)`"#, in: map)
        #expect(paths.count > 20)
        let gone = paths.filter { !FileManager.default.fileExists(atPath: ArchitectureSources.root.appending(path: $0).path) }
        #expect(gone.isEmpty, "files docs/architecture.md names that do not exist: \(gone)")
    }

    @Test func everyTypeTheMapNamesExists() throws {
        let map = try ArchitectureSources.map()
        let declared = try ArchitectureSources.declaredTypeNames()
        let named = Set(ArchitectureSources.matches(of: #"`([A-Z][A-Za-z0-9]+)(?:\.[a-zA-Z][A-Za-z0-9]*)*(?:\([^`]*\))?`"#, in: map))
        let gone = named.subtracting(declared).subtracting(ArchitectureSources.namesFromOutside).sorted()
        #expect(gone.isEmpty, "types docs/architecture.md names that the sources do not declare: \(gone)")
    }
}

/// Reading Sources/ and docs/architecture.md for ArchitectureMapTests.
enum ArchitectureSources {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Names the map may cite that are not Parley's: the standard library, Foundation, GLib and
    /// the C libraries.
    static let namesFromOutside: Set<String> = [
        "AsyncStream", "Duration", "Double", "Bool", "Mutex", "Synchronization", "GTask", "Sendable",
        "Dispatch", "Foundation", "UUID", "Logger", "Yams", "CoreMetrics", "String", "Int",
    ]

    struct Declaration: CustomStringConvertible {
        let name: String
        let file: String
        var description: String { "\(name) (\(file))" }
    }

    static func map() throws -> String {
        try String(contentsOf: root.appending(path: "docs/architecture.md"), encoding: .utf8)
    }

    /// Every Swift file under Sources/, as its path from the repository and its text.
    static func sources() throws -> [(path: String, text: String)] {
        let base = root.appending(path: "Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
        var files: [(String, String)] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let path = "Sources/" + url.path.dropFirst(base.path.count + 1)
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    private static let typeDeclaration = #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated)\s+)*"#

    static func declarations(of kind: String) throws -> [Declaration] {
        try sources().flatMap { file in
            matches(of: typeDeclaration + kind + #"\s+([A-Z][A-Za-z0-9]*)"#, in: file.text).map { Declaration(name: $0, file: file.path) }
        }
    }

    static func declaredTypeNames() throws -> Set<String> {
        // The modules: the map draws them by their folder's name.
        var names = Set(try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "Sources").path))
        for file in try sources() {
            let declared = matches(of: typeDeclaration + #"(?:class|struct|enum|actor|protocol|typealias|extension)\s+(?:[A-Z][A-Za-z0-9]*\.)*([A-Z][A-Za-z0-9]*)"#, in: file.text)
            names.formUnion(declared)
            // A file's name is the map's way to cite what it holds (`SoundServer` for SoundServer.swift).
            names.insert(String(file.path.split(separator: "/").last!.dropLast(".swift".count)))
        }
        return names
    }

    /// The types that hold a `Lock` as a stored property: the nearest enclosing type declared
    /// above each `Lock(`/`Lock<` in its file.
    static func lockHolders() throws -> [Declaration] {
        var holders: [String: Declaration] = [:]
        for file in try sources() where !file.path.hasPrefix("Sources/Locking/") {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            var enclosing: [(indent: Int, name: String)] = []
            for line in lines {
                let indent = line.prefix { $0 == " " }.count
                let trimmed = line.drop { $0 == " " }
                if let name = matches(of: typeDeclaration + #"(?:class|struct|enum|actor|extension)\s+([A-Z][A-Za-z0-9]*)"#, in: String(line)).first {
                    enclosing.removeAll { $0.indent >= indent }
                    enclosing.append((indent, name))
                }
                let declaresLock = trimmed.hasPrefix("let ") || trimmed.contains(" let ")
                if declaresLock, line.contains("= Lock(") || line.contains(": Lock<") || line.contains("= Lock<"),
                   let holder = enclosing.last(where: { $0.indent < indent }) {
                    holders[holder.name] = Declaration(name: holder.name, file: file.path)
                }
            }
        }
        return holders.values.sorted { $0.name < $1.name }
    }

    /// Paths of the files under Sources/ whose text contains any of `needles`.
    static func files(matching needles: [String]) throws -> [String] {
        try sources().filter { file in needles.contains { file.text.contains($0) } }.map(\.path)
    }
}
