import Foundation

/// Reading and writing checks for the files a user names, with the reason in words.
enum LocalFile {
    /// The whole file; a directory, a missing file or one that cannot be read throws `cannotOpen`.
    static func contents(_ path: String) throws(AudioError) -> [UInt8] {
        try read(path, upTo: nil)
    }

    /// At most the first `limit` bytes, and the file's whole size.
    static func head(_ path: String, upTo limit: Int) throws(AudioError) -> (bytes: [UInt8], size: Int) {
        var size = 0
        let bytes = try read(path, upTo: limit, size: &size)
        return (bytes, size)
    }

    private static func read(_ path: String, upTo limit: Int?) throws(AudioError) -> [UInt8] {
        var size = 0
        return try read(path, upTo: limit, size: &size)
    }

    /// Opened without blocking and refused unless it is a regular file: a FIFO or a device named
    /// `x.wav` must not hang the check or the call.
    private static func read(_ path: String, upTo limit: Int?, size: inout Int) throws(AudioError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: throw .cannotOpen(path: path, reason: "no such file")
            case EACCES: throw .cannotOpen(path: path, reason: "permission denied")
            case EISDIR: throw .cannotOpen(path: path, reason: "it is a directory")
            case EMFILE, ENFILE: throw .outOfFileDescriptors(path: path)
            default: throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotOpen(path: path, reason: "it cannot be read") }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .cannotOpen(path: path, reason: "it is a directory")
        default: throw .cannotOpen(path: path, reason: "it is not a regular file")
        }
        size = Int(status.st_size)
        let wanted = min(size, limit ?? size)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, wanted - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .cannotOpen(path: path, reason: "it cannot be read (\(String(cString: strerror(errno))))") }
            if count == 0 { break }
            filled += count
        }
        return Array(bytes[..<filled])
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
