import Foundation
import Switch

/// `parley switch --users FILE`: accounts kept off the command line. One `LOGIN:PASSWORD` per
/// line (blank lines and `#` comments skipped), or JSON: `{"alice": "secret", ...}` or
/// `[{"login": "alice", "password": "secret"}, ...]`. Errors name the line, never a password.
/// Lines end in LF or CR LF (a file saved on Windows).
enum UsersFile {
    struct Failure: Error {
        let message: String
        /// 66 when the file cannot be read, 64 when its contents are wrong.
        let status: Int32
    }

    static func load(_ path: String) throws(Failure) -> [SwitchAccount] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw Failure(message: "--users \(path): no readable file there", status: LocalInputError.unreadableInput)
        }
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return try json(data, path: path) }
        var accounts: [SwitchAccount] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            do {
                accounts.append(try SwitchAccount(parsing: entry))
            } catch {
                throw Failure(message: "--users \(path):\(index + 1): \(error.reason)", status: ExitStatus.usage)
            }
        }
        return accounts
    }

    private struct Entry: Decodable {
        let login: String
        let password: String
    }

    private static func json(_ data: Data, path: String) throws(Failure) -> [SwitchAccount] {
        let entries: [Entry]
        if let map = try? JSONDecoder().decode([String: String].self, from: data) {
            entries = map.sorted { $0.key < $1.key }.map { Entry(login: $0.key, password: $0.value) }
        } else if let list = try? JSONDecoder().decode([Entry].self, from: data) {
            entries = list
        } else {
            throw Failure(message: "--users \(path): JSON must be {\"LOGIN\": \"PASSWORD\", ...} or [{\"login\": ..., \"password\": ...}, ...]",
                          status: ExitStatus.usage)
        }
        for entry in entries where entry.login.isEmpty || entry.password.isEmpty {
            throw Failure(message: "--users \(path): every user needs a login and a password (\(entry.login.isEmpty ? "an empty login" : "user \(entry.login)"))",
                          status: ExitStatus.usage)
        }
        return entries.map { SwitchAccount(login: $0.login, password: $0.password) }
    }
}
