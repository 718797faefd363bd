import ArgumentParser
import Foundation
import Locking
import Parley

/// Where and as whom to log in. Flags win over `PARLEY_SERVER`, `PARLEY_LOGIN`,
/// `PARLEY_PASSWORD` and `PARLEY_TOKEN`; secrets are never echoed back.
struct ConnectionOptions: ParsableArguments {
    enum Dialect: String, ExpressibleByArgument, CaseIterable {
        case verto, janus, sip
    }

    @Option(help: "Signalling server, ws:// or wss:// (or PARLEY_SERVER); a sip: URL is a SIP server (docs/sip.md).")
    var server: String?

    @Option(help: "Login (or PARLEY_LOGIN): user, or user@domain; a SIP account without a domain takes the server's host.")
    var login: String?

    @Option(help: "Password (or PARLEY_PASSWORD). Prefer --password-file or the environment: flags show in ps.")
    var password: String?

    @Option(help: "Read the password from the first line of this file.")
    var passwordFile: String?

    @Option(help: "Login token instead of login and password (or PARLEY_TOKEN).")
    var token: String?

    @Option(help: "Read the login token from the first line of this file.")
    var tokenFile: String?

    @Option(help: "A profile of the config file (server, login, secret files, CA file, ICE servers); flags and the environment win over it.")
    var profile: String?

    @Option(help: "The config file (default: ~/.config/parley/config.toml).")
    var config: String?

    @Option(help: "Signalling dialect: verto (Telnyx, FreeSWITCH, parley switch), janus, or sip (implied by a sip: server; for SIP over ws://).")
    var dialect: Dialect = .verto

    @Option(help: "Verto method prefix: telnyx_rtc (Telnyx, parley switch) or verto (FreeSWITCH mod_verto).")
    var methodPrefix = "telnyx_rtc"

    @Option(help: "PEM file of CA certificates to trust for wss:// instead of the system's.")
    var caFile: String?

    @Flag(help: "Skip TLS certificate verification for wss:// (testing only).")
    var insecure = false

    @Option(help: "PEM file of our client certificate (and its chain) for a wss:// or sips: server that asks for one; with --key-file.")
    var certFile: String?

    @Option(help: "PEM file of --cert-file's private key (unencrypted); never logged.")
    var keyFile: String?

    @Option(help: "Seconds a call may stay dropped or reconnecting after a network change before it ends.")
    var reconnectTimeout: Duration = .seconds(60)

    @Option(help: "Failed socket reconnects in a row before giving up (0: no limit).")
    var reconnectAttempts = 10

    @Flag(help: "Never reconnect: a dropped socket stays down and a failed media path ends the call.")
    var noReconnect = false

    private static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The config profile chosen (--profile, else the file's default), or nil.
    func configProfile() throws(LocalInputError) -> ConfigProfile? {
        try ConfigFile.profile(named: profile, path: config)
    }

    private func settings() throws(ParleyError) -> ConfigProfile {
        do { return try configProfile() ?? ConfigProfile() } catch { throw error.error }
    }

    private func serverText() throws(ParleyError) -> String {
        let fromProfile = try settings().server
        guard let text = server ?? Self.environment("PARLEY_SERVER") ?? fromProfile else {
            throw ParleyError(kind: .configuration, message: "no server: give --server ws://HOST:PORT or set PARLEY_SERVER")
        }
        return text
    }

    /// The dialect the process speaks: `--dialect`, or SIP for a `sip:`/`sips:` server.
    var spokenDialect: Dialect { speaksSIP ? .sip : dialect }

    /// SIP was asked for, or the server is a `sip:`/`sips:` URL.
    var speaksSIP: Bool {
        if dialect == .sip { return true }
        guard let text = try? serverText() else { return false }
        return text.hasPrefix("sip:") || text.hasPrefix("sips:")
    }

    /// The SIP server URL and the account: `--login user@domain`, or a bare user in the server's
    /// host as its domain (docs/sip.md, "Calls"); `tls` is how a `sips:` or `wss://` server is
    /// verified (`--ca-file`, `--insecure`), as for Verto.
    func sipAccount() throws(ParleyError) -> SIPAccountOptions {
        let text = try serverText()
        // Checked here, so the user reads the error before any "registering" line.
        try SIPPhone.check(server: text)
        guard case .password(let login, let password) = try credentials() else {
            throw ParleyError(kind: .configuration, message: "SIP logs in with --login and a password, not a token")
        }
        let parts = login.split(separator: "@", maxSplits: 1).map(String.init)
        let socket = try socketOptions()
        if parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty {
            return SIPAccountOptions(server: text, user: parts[0], domain: parts[1], password: password, tls: socket.tls, clientCertificate: socket.clientCertificate)
        }
        guard let host = Self.host(ofSIPServer: text) else {
            throw ParleyError(kind: .configuration, message: "--login: give user@domain, since the server URL names no host to use as the domain")
        }
        return SIPAccountOptions(server: text, user: login, domain: host, password: password, tls: socket.tls, clientCertificate: socket.clientCertificate)
    }

    /// The host of a `sip:host[:port];…` or `ws://host[:port]/…` URL.
    static func host(ofSIPServer text: String) -> String? {
        var rest = Substring(text)
        for scheme in ["sips:", "sip:", "wss://", "ws://"] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            break
        }
        let end = rest.firstIndex { ";/?".contains($0) } ?? rest.endIndex
        let hostPort = rest[..<end]
        if hostPort.hasPrefix("[") { return hostPort.firstIndex(of: "]").map { String(hostPort[...$0]) } }
        let host = hostPort.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return host.isEmpty ? nil : host
    }

    func serverURL() throws(ParleyError) -> WebSocketURL {
        let text = try serverText()
        do {
            return try WebSocketURL(parsing: text)
        } catch {
            throw ParleyError(kind: .configuration, message: "--server: \(error)" + Self.schemeHint(text))
        }
    }

    /// What a server URL with a scheme from elsewhere was likely meant as: newcomers write the
    /// transport as a scheme (`udp://pbx`) or an HTTP page's URL for its WebSocket.
    static func schemeHint(_ text: String) -> String {
        guard let end = text.range(of: "://") else { return "" }
        let scheme = text[..<end.lowerBound].lowercased()
        let rest = text[end.upperBound...]
        switch scheme {
        case "udp", "tcp": return "; for SIP over \(scheme.uppercased()) write sip:\(rest);transport=\(scheme)"
        case "tls": return "; for SIP over TLS write sips:\(rest)"
        case "http": return "; a WebSocket on that server is ws://\(rest)"
        case "https": return "; a WebSocket on that server is wss://\(rest)"
        default: return ""
        }
    }

    /// Checks the files these options name before anything connects: secret files are there
    /// and readable (66 if not), the CA file exists (bad usage if not), the client certificate
    /// and its key are readable (66 if not), PEM and each other's (bad usage if not).
    func checkLocalFiles() throws(LocalInputError) {
        let settings = try configProfile() ?? ConfigProfile()
        _ = try secrets(settings)
        if let certificate = try clientCertificate(settings) {
            do { try certificate.check() } catch {
                let status = if case .unreadable = error { LocalInputError.unreadableInput } else { ExitStatus.usage }
                throw LocalInputError(error: ParleyError(kind: .configuration, message: error.description), status: status)
            }
        }
        if let caFile = caFile ?? settings.caFile, !insecure {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: caFile, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isReadableFile(atPath: caFile)
            else {
                throw LocalInputError(error: ParleyError(kind: .configuration, message: "--ca-file \(caFile): no readable file there"), status: ExitStatus.usage)
            }
        }
    }

    private func secrets(_ settings: ConfigProfile) throws(LocalInputError) -> (password: String?, token: String?) {
        let password = try SecretFile.choose(value: password, file: passwordFile, environment: "PARLEY_PASSWORD", flags: ("--password", "--password-file"),
                                             profileFile: settings.passwordFile)
        // A token from the profile would shadow a login given on the command line.
        let tokenFromProfile = login == nil ? settings.tokenFile : nil
        let token = try SecretFile.choose(value: token, file: tokenFile, environment: "PARLEY_TOKEN", flags: ("--token", "--token-file"),
                                          profileFile: tokenFromProfile)
        return (password, token)
    }

    func credentials() throws(ParleyError) -> VertoCredentials {
        let settings = try settings()
        let secrets: (password: String?, token: String?)
        do { secrets = try self.secrets(settings) } catch { throw error.error }
        if let token = secrets.token { return .token(token) }
        guard let login = login ?? Self.environment("PARLEY_LOGIN") ?? settings.login else {
            throw ParleyError(kind: .configuration, message: "no credentials: give --login and --password-file (or PARLEY_LOGIN and PARLEY_PASSWORD), or --token-file")
        }
        guard let password = secrets.password else {
            throw ParleyError(kind: .configuration, message: "no password for \(login): give --password-file or --password, or set PARLEY_PASSWORD")
        }
        return .password(login: login, password: password)
    }

    /// `--cert-file` with `--key-file` (or the profile's), or neither.
    private func clientCertificate(_ settings: ConfigProfile) throws(LocalInputError) -> TLSClientCertificate? {
        switch (certFile ?? settings.certFile, keyFile ?? settings.keyFile) {
        case (nil, nil): return nil
        case (let certificate?, let key?): return TLSClientCertificate(certificatePath: certificate, privateKeyPath: key)
        case (nil, _?): throw LocalInputError(error: ParleyError(kind: .configuration, message: "--key-file needs --cert-file, the certificate it is the key of"), status: ExitStatus.usage)
        case (_?, nil): throw LocalInputError(error: ParleyError(kind: .configuration, message: "--cert-file needs --key-file, its private key"), status: ExitStatus.usage)
        }
    }

    func socketOptions() throws(ParleyError) -> WebSocketOptions {
        var options = WebSocketOptions()
        let settings = try settings()
        do { options.clientCertificate = try clientCertificate(settings) } catch { throw error.error }
        let profileCAFile = settings.caFile
        if insecure {
            options.tls = .insecureSkipVerification
        } else if let caFile = caFile ?? profileCAFile {
            options.tls = .customCA(path: caFile)
        }
        return options
    }

    func clientConfiguration(media: MediaOptions) throws(ParleyError) -> VoiceClientConfiguration {
        var configuration = VoiceClientConfiguration(server: try serverURL(), credentials: try credentials())
        configuration.methodPrefix = methodPrefix
        configuration.readiness = methodPrefix == "verto" ? .loggedIn : .gatewayRegistered
        configuration.socket = try socketOptions()
        configuration.media = media
        configuration.reconnection = try reconnectionPolicy()
        return configuration
    }

    func reconnectionPolicy() throws(ParleyError) -> ReconnectionPolicy {
        guard reconnectTimeout > .zero, reconnectTimeout <= .seconds(86_400) else {
            throw ParleyError(kind: .configuration, message: "--reconnect-timeout must be more than 0 and at most 86400 seconds, not \(reconnectTimeout.inSeconds)")
        }
        guard reconnectAttempts >= 0 else {
            throw ParleyError(kind: .configuration, message: "--reconnect-attempts must be 0 (no limit) or more, not \(reconnectAttempts)")
        }
        var policy = ReconnectionPolicy()
        policy.isEnabled = !noReconnect
        policy.reconnectTimeout = reconnectTimeout
        policy.maximumAttempts = reconnectAttempts
        return policy
    }
}

/// What a SIP phone is opened with: the server, the account and how TLS goes both ways.
struct SIPAccountOptions {
    let server: String
    let user: String
    let domain: String
    let password: String
    let tls: TLSVerification
    let clientCertificate: TLSClientCertificate?
}
