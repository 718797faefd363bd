import ArgumentParser
import Foundation

/// `--record-dir DIR` of the commands that record many calls: DIR must exist and be a directory.
enum RecordDirectory {
    static func validate(_ path: String?) throws {
        guard let path else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--record-dir \(path) is not a directory")
        }
    }
}
