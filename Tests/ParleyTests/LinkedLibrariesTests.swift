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
}
