import Foundation
import Parley
import TOMLKit

/// One named profile of the config file: what a person would otherwise retype on every call.
/// Secrets are named by file (`password-file`), never held in the config itself.
struct ConfigProfile: Decodable, Equatable {
    var server: String?
    var login: String?
    var passwordFile: String?
    var tokenFile: String?
    var caFile: String?
    var certFile: String?
    var keyFile: String?
    var stun: [String]?
    var turn: [String]?
    var turnUser: String?
    var turnPasswordFile: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case server, login, stun, turn
        case passwordFile = "password-file", tokenFile = "token-file", caFile = "ca-file"
        case certFile = "cert-file", keyFile = "key-file"
        case turnUser = "turn-user", turnPasswordFile = "turn-password-file"
    }
}

/// `~/.config/parley/config.toml` (or `$XDG_CONFIG_HOME/parley/config.toml`, or `--config FILE`):
///
///     default = "local"
///     [profiles.local]
///     server = "ws://127.0.0.1:8080"
///     login = "alice"
///     password-file = "~/.config/parley/alice.password"
///
/// Flags win over the environment, which wins over the profile (docs/cli.md).
struct ConfigFile: Decodable {
    var `default`: String?
    var profiles: [String: ConfigProfile]

    enum CodingKeys: String, CodingKey {
        case `default`, profiles
    }

    static func defaultPath() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return base + "/parley/config.toml"
    }

    /// The profile to use: `name` (from `--profile`), else the file's `default`, else none.
    /// A file named with `--config` or a profile asked for must exist; the default file may not.
    static func profile(named name: String?, path explicitPath: String?) throws(LocalInputError) -> ConfigProfile? {
        let path = explicitPath.map(expandingTilde) ?? defaultPath()
        guard FileManager.default.fileExists(atPath: path) else {
            if explicitPath != nil || name != nil {
                throw LocalInputError(error: ParleyError(kind: .configuration, message: "no config file at \(path) (for \(name.map { "--profile \($0)" } ?? "--config"))"), status: LocalInputError.unreadableInput)
            }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "\(path): cannot read the config file"), status: LocalInputError.unreadableInput)
        }
        let config: ConfigFile
        do {
            config = try TOMLDecoder(strictDecoding: true).decode(ConfigFile.self, from: String(decoding: data, as: UTF8.self))
        } catch let error as TOMLParseError {
            throw usage("\(path):\(error.source.begin.line): \(error.description)")
        } catch let error as UnexpectedKeysError {
            let keys = error.keys.values.map { $0.map(\.stringValue).joined(separator: ".") }.sorted()
            let known = ConfigProfile.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
            throw usage("\(path): unknown key \(keys.joined(separator: ", ")); a profile takes \(known)")
        } catch {
            throw usage("\(path): \(error)")
        }
        guard let chosen = name ?? config.default else { return nil }
        guard var profile = config.profiles[chosen] else {
            throw usage("\(path) has no profile \"\(chosen)\"; it has \(config.profiles.keys.sorted().joined(separator: ", "))")
        }
        profile.passwordFile = profile.passwordFile.map(expandingTilde)
        profile.tokenFile = profile.tokenFile.map(expandingTilde)
        profile.turnPasswordFile = profile.turnPasswordFile.map(expandingTilde)
        profile.caFile = profile.caFile.map(expandingTilde)
        profile.certFile = profile.certFile.map(expandingTilde)
        profile.keyFile = profile.keyFile.map(expandingTilde)
        return profile
    }

    private static func usage(_ message: String) -> LocalInputError {
        LocalInputError(error: ParleyError(kind: .configuration, message: message), status: ExitStatus.usage)
    }

    private static func expandingTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? NSHomeDirectory() + path.dropFirst() : path
    }
}
