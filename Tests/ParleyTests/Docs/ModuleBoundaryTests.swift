import Foundation
import Testing

/// docs/architecture.md, "Modules", says what each module may import and which CLI files reach
/// below Parley (the seam), each with its reason. These tests read every import line under
/// Sources/ against those two tables, so a file that crosses a boundary fails here by name, and
/// they keep Parley's re-exports equal to the public types of the layers below it.
@Suite struct ModuleBoundaryTests {
    /// The standard library's and the system's modules, open to every module.
    static let fromTheSystem: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization"]

    @Test func everyImportIsOneTheBoundaryAllows() throws {
        let map = try ArchitectureSources.map()
        let allowed = try ModuleMap.allowedImports(in: map)
        let seam = try ModuleMap.seam(in: map)
        var crossings: [String] = []
        for file in try ModuleMap.imports() {
            let permitted = try #require(allowed[file.module], "docs/architecture.md has no row for the module \(file.module)")
            for imported in file.imports where imported != file.module && !Self.fromTheSystem.contains(imported) {
                if permitted.contains(imported) || seam[file.path]?.contains(imported) == true { continue }
                crossings.append("\(file.path) imports \(imported)")
            }
        }
        #expect(crossings.isEmpty, "imports docs/architecture.md (\"What each module may import\") does not allow: \(crossings)")
    }

    @Test func everyModuleHasARow() throws {
        let allowed = try ModuleMap.allowedImports(in: try ArchitectureSources.map())
        let modules = Set(try ModuleMap.imports().map(\.module))
        #expect(modules.count > 8)
        #expect(modules.subtracting(allowed.keys).isEmpty, "modules docs/architecture.md gives no row: \(modules.subtracting(allowed.keys).sorted())")
    }

    /// The floors: what drives calls (Drivers) sits on the library, so only the command line may
    /// import it, and a lower module's row cannot be widened to reach up.
    @Test func onlyTheCommandLineImportsTheDrivers() throws {
        let allowed = try ModuleMap.allowedImports(in: try ArchitectureSources.map())
        #expect(allowed["Drivers"]?.contains("Parley") == true)
        #expect(allowed.filter { $0.value.contains("Drivers") }.keys.sorted() == ["CLI"])
    }

    /// Each exception is still needed: a seam row whose file no longer imports what it names fails.
    @Test func everySeamRowIsUsed() throws {
        let seam = try ModuleMap.seam(in: try ArchitectureSources.map())
        #expect(!seam.isEmpty)
        let imports = Dictionary(uniqueKeysWithValues: try ModuleMap.imports().map { ($0.path, Set($0.imports)) })
        var stale: [String] = []
        for (path, modules) in seam {
            for module in modules where imports[path]?.contains(module) != true { stale.append("\(path) does not import \(module)") }
        }
        #expect(stale.isEmpty, "seam rows in docs/architecture.md that the code no longer needs: \(stale.sorted())")
    }

    /// What the layers below make public is exactly what Parley re-exports (Sources/Parley/PublicSurface.swift).
    @Test func parleyReExportsThePublicTypesOfTheLayersBelow() throws {
        let lowerPublic = Set(try ArchitectureSources.sources().flatMap { file -> [String] in
            let module = ModuleMap.module(of: file.path)
            guard ["Signaling", "ICE", "Media"].contains(module) else { return [] }
            return ArchitectureSources.matches(of: #"^public\s+(?:final\s+)?(?:struct|enum|class|protocol|actor)\s+([A-Z][A-Za-z0-9]*)"#, in: file.text)
                .map { "\(module).\($0)" }
        })
        let surface = try #require(try ArchitectureSources.sources().first { $0.path == "Sources/Parley/PublicSurface.swift" })
        let reExported = Set(ArchitectureSources.matches(
            of: #"^@_exported import (?:struct|enum|class|protocol|actor) ((?:Signaling|ICE|Media)\.[A-Z][A-Za-z0-9]*)"#, in: surface.text))
        #expect(lowerPublic.count > 10)
        #expect(lowerPublic.subtracting(reExported).isEmpty,
                "public in a lower layer but not re-exported by Parley (re-export it, or make it package): \(lowerPublic.subtracting(reExported).sorted())")
        #expect(reExported.subtracting(lowerPublic).isEmpty, "re-exported but no longer public: \(reExported.subtracting(lowerPublic).sorted())")
    }
}

/// The import lines of Sources/ and the two tables of docs/architecture.md's "Modules".
enum ModuleMap {
    struct FileImports {
        let path: String
        let module: String
        let imports: [String]
    }

    static func module(of path: String) -> String { String(path.split(separator: "/")[1]) }

    /// Every Swift file's imported modules, scoped (`import struct A.B`) and attributed
    /// (`@_exported`, `internal import`) ones included.
    static func imports() throws -> [FileImports] {
        let pattern = #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|enum|class|protocol|actor|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#
        return try ArchitectureSources.sources().map { file in
            FileImports(path: file.path, module: module(of: file.path), imports: ArchitectureSources.matches(of: pattern, in: file.text))
        }
    }

    /// The rows of the first markdown table under `heading` (before the next heading): its cells,
    /// trimmed, without backticks, the header row left out.
    static func rows(after heading: String, in map: String) throws -> [[String]] {
        let start = try #require(map.range(of: heading), "docs/architecture.md has no \(heading)")
        var rows: [[String]] = []
        for line in map[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") { break }
            guard trimmed.hasPrefix("|") else {
                if rows.isEmpty { continue } else { break }
            }
            let cells = trimmed.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
            if cells.allSatisfy({ $0.allSatisfy { $0 == "-" } }) { continue }
            rows.append(cells)
        }
        return Array(rows.dropFirst())
    }

    static func names(_ cell: String) -> Set<String> {
        Set(cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "nothing" && !$0.isEmpty })
    }

    /// "What each module may import": module -> the modules it may import.
    static func allowedImports(in map: String) throws -> [String: Set<String>] {
        let rows = try rows(after: "### What each module may import", in: map)
        #expect(rows.count > 8)
        return Dictionary(rows.map { ($0[0], names($0.count > 1 ? $0[1] : "")) }, uniquingKeysWith: { $0.union($1) })
    }

    /// "The CLI's seam": file -> the lower modules it may import, each row with its reason.
    static func seam(in map: String) throws -> [String: Set<String>] {
        let rows = try rows(after: "### The CLI's seam", in: map)
        for row in rows { #expect(row.count == 3 && !row[2].isEmpty, "a seam row without its reason: \(row)") }
        return Dictionary(rows.map { ($0[0], names($0.count > 1 ? $0[1] : "")) }, uniquingKeysWith: { $0.union($1) })
    }
}
