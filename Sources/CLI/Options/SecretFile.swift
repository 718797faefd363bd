import Foundation
import Parley

/// A secret read from a file named on the command line (`--password-file` and the like), so
/// the secret itself stays out of `ps`, the shell history and the environment.
enum SecretFile {
    /// The file's first line without its line ending. A file that cannot be read exits 66; an
    /// empty one is bad usage. The message names the file, never its contents.
    static func read(_ path: String, flag: String) throws(LocalInputError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "\(flag) \(path): no readable file there"),
                                  status: LocalInputError.unreadableInput)
        }
        let secret = firstLine(of: data)
        guard !secret.isEmpty else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "\(flag) \(path): the first line is empty"), status: ExitStatus.usage)
        }
        return secret
    }

    /// The bytes up to the first LF, less one CR before it: a file saved on Windows
    /// (`secret\r\n`) gives the same secret as one saved on Linux, as curl, git and docker read
    /// them. Split on bytes, not Characters: Swift reads CR LF as one Character.
    static func firstLine(of data: Data) -> String {
        var line = data.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// One secret from a flag, a file flag, the environment or the config profile's file, in
    /// that order; both flags at once is bad usage.
    static func choose(value: String?, file: String?, environment: String, flags: (value: String, file: String),
                       profileFile: String? = nil) throws(LocalInputError) -> String? {
        if value != nil, file != nil {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "give \(flags.value) or \(flags.file), not both"), status: ExitStatus.usage)
        }
        if let value { return value }
        if let file { return try read(file, flag: flags.file) }
        if let fromEnvironment = ProcessInfo.processInfo.environment[environment], !fromEnvironment.isEmpty { return fromEnvironment }
        return try profileFile.map { path throws(LocalInputError) in try read(path, flag: "the profile's \(flags.file.dropFirst(2))") }
    }
}
