import ArgumentParser
import Foundation
import Parley

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print Parley's version and the versions of the C libraries it runs on."
    )

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func run() throws {
        let libraries = ParleyVersion.linkedLibraries()
        if json {
            JSONEvents.emit("version", VersionPayload(version: ParleyVersion.version, build: Self.build, libraries: libraries))
            return
        }
        print("parley \(ParleyVersion.version) (\(Self.build) build)")
        let width = libraries.map(\.name.count).max() ?? 0
        for library in libraries {
            print("  \(library.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(library.version)")
        }
    }
}

extension VersionCommand {
    /// Which configuration this binary was built in: benchmarks and bug reports need to know,
    /// since a debug build's CPU figures mean little (bench/run reads it).
    static var build: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }
}

private struct VersionPayload: Encodable {
    let version: String
    let build: String
    let libraries: [ParleyVersion.LinkedLibrary]
}
