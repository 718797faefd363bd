import CNice
#if canImport(Glibc)
import Glibc
#endif

/// The libnice and GLib actually loaded into this process.
public enum LibNiceVersion {
    /// libnice exports no version call, so the version is read from the file name of the shared
    /// object that holds `nice_agent_new` (e.g. `libnice.so.10.13.1`), as the dynamic loader found it.
    public static func runtime() -> String {
        let glib = "GLib \(glib_major_version).\(glib_minor_version).\(glib_micro_version)"
        guard let file = loadedObjectFileName() else {
            return "unknown (\(glib))"
        }
        let prefix = "libnice.so."
        if file.hasPrefix(prefix) {
            return "\(file.dropFirst(prefix.count)) (\(file), \(glib))"
        }
        return "\(file) (\(glib))"
    }

    private static func loadedObjectFileName() -> String? {
        guard let path = parley_nice_library_path(), let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved).split(separator: "/").last.map(String.init)
    }
}
