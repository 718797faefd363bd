import CNice
import Foundation

/// The libnice and GLib actually loaded into this process.
package enum LibNiceVersion {
    /// The libnice release Parley was built against (`0.1.21`), as its headers and pkg-config
    /// give it; the shared object's file name (`libnice.so.10.13.1`) is a library ABI number,
    /// not a release, so it only follows in parentheses to show which file was loaded.
    package static let release = "\(NICE_VERSION_MAJOR).\(NICE_VERSION_MINOR).\(NICE_VERSION_MICRO)"

    /// `0.1.21 (libnice.so.10.13.1, GLib 2.74.6)`. libnice exports no version call, so the loaded
    /// file is found in /proc/self/maps as the object that holds `nice_agent_new`.
    package static func runtime() -> String {
        let glib = "GLib \(glib_major_version).\(glib_minor_version).\(glib_micro_version)"
        guard let file = loadedObjectFileName() else {
            return "\(release) (\(glib))"
        }
        return "\(release) (\(file), \(glib))"
    }

    private static func loadedObjectFileName() -> String? {
        // /proc files report size 0, so read to the end rather than by size.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return nil }
        let mappings = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap(Mapping.init)
        // The address may resolve to libnice itself or, in a non-PIC link, to our own PLT entry;
        // fall back to the loaded object named libnice.
        let address = UInt(bitPattern: parley_nice_function_address())
        let holder = mappings.first { $0.range.contains(address) && $0.fileName.hasPrefix("libnice") }
        return (holder ?? mappings.first { $0.fileName.hasPrefix("libnice.so") })?.fileName
    }

    /// One line of /proc/self/maps: `start-end perms offset dev inode path`.
    private struct Mapping {
        let range: Range<UInt>
        let fileName: String

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end else {
                return nil
            }
            let path = fields[5...].joined(separator: " ")
            let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? path
            guard let name = resolved.split(separator: "/").last else { return nil }
            range = start..<end
            fileName = String(name)
        }
    }
}
