import ArgumentParser
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
            JSONEvents.emit("version", VersionPayload(version: ParleyVersion.version, libraries: libraries))
            return
        }
        print("parley \(ParleyVersion.version)")
        let width = libraries.map(\.name.count).max() ?? 0
        for library in libraries {
            print("  \(library.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(library.version)")
        }
    }
}

private struct VersionPayload: Encodable {
    let version: String
    let libraries: [ParleyVersion.LinkedLibrary]
}
