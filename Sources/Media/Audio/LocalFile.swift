import Foundation

/// Reading and writing checks for the files a user names, with the reason in words.
enum LocalFile {
    /// The whole file; a directory, a missing file or one that cannot be read throws `cannotOpen`.
    static func contents(_ path: String) throws(AudioError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .cannotOpen(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .cannotOpen(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .cannotOpen(path: path, reason: "permission denied") }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw .cannotOpen(path: path, reason: "it cannot be read (\((error as NSError).localizedFailureReason ?? "read error"))")
        }
    }

    static func checkWritable(_ path: String) throws(AudioError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .cannotOpen(path: path, reason: "the folder \(folder) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw .cannotOpen(path: path, reason: "it is a directory") }
            guard access(path, W_OK) == 0 else { throw .cannotOpen(path: path, reason: "the file is not writable") }
        } else {
            guard access(folder, W_OK | X_OK) == 0 else { throw .cannotOpen(path: path, reason: "the folder \(folder) is not writable") }
        }
    }
}
