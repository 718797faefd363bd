import Foundation
import Parley

/// Turns a record step's path template into the file for one recording.
enum RecordingPath {
    static let placeholders: Set<String> = ["call", "time", "n"]

    static func resolve(template: String, callID: String, time: Date, number: Int, directory: String) -> String {
        let path = template
            .replacingOccurrences(of: "{call}", with: safeFileName(callID))
            .replacingOccurrences(of: "{time}", with: timestamp(time))
            .replacingOccurrences(of: "{n}", with: String(number))
        return path.hasPrefix("/") ? path : URL(fileURLWithPath: directory).appendingPathComponent(path).path
    }

    /// Call ids come from the network: keep letters, digits, `.`, `_`, `-`, so no id can name
    /// another directory.
    static func safeFileName(_ text: String) -> String {
        let kept = String(text.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
            return allowed ? Character(scalar) : "_"
        }.prefix(128))
        return kept.isEmpty || kept.allSatisfy({ $0 == "." }) ? "call" : kept
    }

    /// UTC, without characters file systems dislike: 20261105T101530Z.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
