import Foundation
import Testing

/// docs/architecture.md's concurrency tables read as strictly as ModuleBoundaryTests reads the
/// module table: the actor table, the lock table and the thread table, row by row, against the
/// code. A test fails naming the row that is missing (an actor, a type holding a `Lock`, a named
/// thread the code has and the table does not) or stale (a row the code no longer has).
@Suite struct ConcurrencyMapTests {
    /// "Every actor of the code:": name, what it owns, its file.
    @Test func theActorTableHasARowForEveryActorAndNoOther() throws {
        let rows = try ModuleMap.rows(after: "Every actor of the code:", in: try ArchitectureSources.map())
        for row in rows { #expect(row.count == 3, "an actor row without three cells: \(row)") }
        let table = Dictionary(rows.map { ($0[0], $0.count > 2 ? $0[2] : "") }, uniquingKeysWith: { first, _ in first })
        let actors = try ArchitectureSources.declarations(of: "actor")
        #expect(actors.count > 10, "the scan finds the project's actors: \(actors)")
        let missing = actors.filter { table[$0.name] == nil }
        #expect(missing.isEmpty, "actors without a row in docs/architecture.md's actor table: \(missing.map(\.description))")
        let stale = Set(table.keys).subtracting(actors.map(\.name)).sorted()
        #expect(stale.isEmpty, "rows of the actor table that name no actor of the code: \(stale)")
        let misplaced = actors.filter { actor in table[actor.name].map { $0 != actor.file } ?? false }
        #expect(misplaced.isEmpty, "actor rows whose file is not where the actor is declared: \(misplaced.map(\.description))")
    }

    /// "Every type that holds one:": the holders (the first name of each item of the first cell;
    /// a parenthesis is a note), what they guard, who takes the lock.
    @Test func theLockTableHasARowForEveryTypeHoldingALockAndNoOther() throws {
        let rows = try ModuleMap.rows(after: "that holds one:", in: try ArchitectureSources.map())
        for row in rows { #expect(row.count == 3, "a lock row without three cells (broken markdown?): \(row)") }
        let named = Set(rows.flatMap { Self.holders(in: $0[0]) })
        let holders = try ArchitectureSources.lockHolders()
        #expect(holders.count > 10, "the scan finds the project's locks: \(holders)")
        let missing = holders.filter { !named.contains($0.name) }
        #expect(missing.isEmpty, "types holding a Lock without a row in docs/architecture.md's lock table: \(missing.map(\.description))")
        let stale = named.subtracting(holders.map(\.name)).sorted()
        #expect(stale.isEmpty, "names in the lock table that hold no Lock in the code: \(stale)")
    }

    /// "The threads": every thread the code names (`ThreadName.adopt`) has a row naming it and
    /// the file that makes it; every `parley-` thread a row names is named by the code.
    @Test func theThreadTableHasARowForEveryNamedThreadAndNoOther() throws {
        let rows = try ModuleMap.rows(after: "### The threads", in: try ArchitectureSources.map())
        for row in rows { #expect(row.count == 4, "a thread row without four cells: \(row)") }
        let sites = try ArchitectureSources.sources().filter { $0.text.contains("ThreadName.adopt(") }
        #expect(sites.count >= 4, "the scan finds the threads the process names: \(sites.map(\.path))")
        for site in sites {
            #expect(rows.contains { $0.count == 4 && $0[3].contains(site.path) },
                    "\(site.path) names a thread that no row of docs/architecture.md's thread table is made in")
            for name in ArchitectureSources.matches(of: #"ThreadName\.adopt\("([^"]+)"\)"#, in: site.text) {
                #expect(rows.contains { Self.threadNames(in: $0[0]).contains(name) }, "the thread \(name) (\(site.path)) has no row in the thread table")
            }
        }
        let literals = try ArchitectureSources.sources().flatMap { ArchitectureSources.matches(of: #""(parley-[a-z]+)"#, in: $0.text) }
        let stale = rows.flatMap { Self.threadNames(in: $0[0]) }.filter { name in
            !literals.contains { $0 == name || name.hasPrefix($0 + "-") }
        }
        #expect(stale.isEmpty, "threads the thread table names that no source names: \(stale)")
    }

    /// `A, B (its C), D` -> A, B, D.
    static func holders(in cell: String) -> [String] {
        let notes = cell.replacingOccurrences(of: #"\([^)]*\)"#, with: "", options: .regularExpression)
        return notes.split(separator: ",").compactMap { item in
            item.split(separator: " ").first.map(String.init)
        }
    }

    /// The `parley-…` names of a thread cell, `-N` (one per shard) cut off.
    static func threadNames(in cell: String) -> [String] {
        ArchitectureSources.matches(of: #"(parley-[a-z]+(?:-N)?)"#, in: cell).map { $0.hasSuffix("-N") ? String($0.dropLast(2)) : $0 }
    }
}
