import ICE
import Media
import Signaling

/// Parley's own version and the C libraries it runs on, read from those libraries at run time.
public enum ParleyVersion {
    public static let version = "0.1.0"

    public struct LinkedLibrary: Sendable, Equatable, Codable {
        public let name: String
        public let version: String
    }

    public static func linkedLibraries() -> [LinkedLibrary] {
        [
            LinkedLibrary(name: "libnice", version: LibNiceVersion.runtime()),
            LinkedLibrary(name: "libsrtp2", version: MediaLibraryVersions.libsrtp()),
            LinkedLibrary(name: "libwebsockets", version: LibWebSocketsVersion.runtime()),
            LinkedLibrary(name: "libopus", version: MediaLibraryVersions.libopus()),
            LinkedLibrary(name: "OpenSSL", version: MediaLibraryVersions.openssl()),
        ]
    }
}
