import Foundation
import Parley
import Testing

@Suite struct LinkedLibrariesTests {
    @Test func everyLinkedLibraryReportsARealVersion() {
        let libraries = ParleyVersion.linkedLibraries()
        #expect(libraries.map(\.name) == ["libnice", "libsrtp2", "libwebsockets", "libopus", "OpenSSL"])
        for library in libraries {
            #expect(!library.version.hasPrefix("unknown"), "\(library.name) did not report its version")
            #expect(library.version.contains { $0.isNumber }, "\(library.name) version has no number: \(library.version)")
        }
    }

    @Test func versionsComeFromTheLoadedLibraries() throws {
        let byName = Dictionary(uniqueKeysWithValues: ParleyVersion.linkedLibraries().map { ($0.name, $0.version) })
        #expect(byName["libopus"]?.hasPrefix("libopus ") == true)
        #expect(byName["OpenSSL"]?.hasPrefix("OpenSSL ") == true)
        #expect(byName["libnice"]?.contains("libnice.so.") == true)
    }

    /// The release (0.1.21), not the shared object's ABI number (libnice.so.10.13.1), leads.
    @Test func libniceShowsTheReleasePkgConfigKnows() throws {
        let pkgConfig = Process()
        pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        pkgConfig.arguments = ["pkg-config", "--modversion", "nice"]
        let output = Pipe()
        pkgConfig.standardOutput = output
        try pkgConfig.run()
        pkgConfig.waitUntilExit()
        let release = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(pkgConfig.terminationStatus == 0 && !release.isEmpty)
        let libnice = try #require(ParleyVersion.linkedLibraries().first { $0.name == "libnice" })
        #expect(libnice.version.hasPrefix(release + " ("), "\(libnice.version)")
    }
}
