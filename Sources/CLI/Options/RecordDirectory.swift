import ArgumentParser
import Foundation

/// `--record-dir DIR` of the commands that record many calls: DIR is created (with its parents)
/// when it does not exist, as `mkdir -p` would; a file of that name is bad usage.
enum RecordDirectory {
    static func validate(_ path: String?) throws {
        guard let path else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ValidationError("--record-dir \(path) is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("--record-dir \(path): cannot create the directory")
        }
    }
}
