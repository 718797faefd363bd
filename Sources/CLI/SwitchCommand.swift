import ArgumentParser
import Foundation
import Parley
import Switch

struct SwitchCommand: LongRunningCommand {
    static let configuration = CommandConfiguration(
        commandName: "switch",
        abstract: "Run the embedded Verto/Telnyx switch: clients log in to it and call each other.",
        discussion: """
            Users log in with a password (--user alice:secret, or --users FILE) or a token (--token TOKEN=alice). \
            Calls to a logged-in user are relayed to that user; media flows peer to peer.

            Example: parley switch --listen ws://127.0.0.1:8080 --user alice:secret --user bob:secret
            """
    )

    @Option(help: "ws://HOST:PORT or wss://HOST:PORT to listen on: an address, or a name for each of its addresses; 0.0.0.0 or [::] for every interface (port 0 picks a free one).")
    var listen = "ws://127.0.0.1:8080"

    @Option(name: .customLong("user"), help: "An account LOGIN:PASSWORD (repeatable; --users FILE keeps passwords out of ps).")
    var users: [String] = []

    @Option(name: .customLong("users"), help: "A file of accounts, one LOGIN:PASSWORD per line or JSON, kept out of ps (docs/cli.md).")
    var usersFile: String?

    @Option(name: .customLong("token"), help: "A login token for an account, TOKEN=LOGIN (repeatable).")
    var tokens: [String] = []

    @Option(name: .customLong("cert"), help: "PEM certificate for wss://.")
    var certificate: String?

    @Option(name: .customLong("key"), help: "PEM private key for wss://.")
    var privateKey: String?

    @Option(help: "Seconds a dropped client's calls wait for it to log in again.")
    var detachTimeout: Duration = .seconds(30)

    @Option(help: "Seconds a call the switch routes may ring unanswered before it ends it NO_ANSWER (19) on both sides; 0: no limit.")
    var noAnswerTimeout: Duration = .seconds(60)

    @Option(help: "Idle seconds before the switch pings a client.")
    var pingInterval: Duration = .seconds(30)

    @Option(help: "Seconds a pinged telnyx_rtc client may stay silent before its socket is dropped and its calls detached (verto.* clients answer no ping).")
    var pingTimeout: Duration = .seconds(10)

    @Option(help: "The domain of user@domain logins: bob@DOMAIN logs in as bob (as FreeSWITCH's verto users do); without it, any domain.")
    var domain: String?

    @Flag(help: "Also serve the browser softphone on the same port (https:// with --cert/--key); see docs/browser.md.")
    var web = false

    @Flag(help: "Print one JSON object per line on standard output.")
    var json = false

    @OptionGroup var metricsFlags: MetricsFlags

    func validate() throws {
        guard !users.isEmpty || !tokens.isEmpty || usersFile != nil else {
            throw ValidationError("give at least one --user LOGIN:PASSWORD, --users FILE or --token TOKEN=LOGIN")
        }
        if let domain, domain.isEmpty || domain.contains(where: { $0 == "@" || $0.isWhitespace }) {
            throw ValidationError("--domain must be a domain name such as example.com")
        }
        guard detachTimeout > .zero else { throw ValidationError("--detach-timeout must be positive") }
        guard noAnswerTimeout >= .zero else { throw ValidationError("--no-answer-timeout must not be negative") }
        guard pingInterval > .zero, pingTimeout > .zero else { throw ValidationError("--ping-interval and --ping-timeout must be positive") }
        let url: WebSocketURL
        do { url = try WebSocketURL(parsing: listen) } catch { throw ValidationError(error.description) }
        if url.secure, certificate == nil || privateKey == nil { throw ValidationError("wss:// needs --cert and --key") }
        _ = try accounts(readingFile: false)
    }

    /// Every account from --user, --users and --token; a login given twice with a password is refused.
    private func accounts(readingFile: Bool) throws -> [SwitchAccount] {
        var accounts: [SwitchAccount] = []
        for user in users {
            do { accounts.append(try SwitchAccount(parsing: user)) } catch { throw ValidationError(error.reason) }
        }
        if readingFile, let usersFile {
            do { accounts += try UsersFile.load(usersFile) } catch { Diagnostics.fail("parley switch: \(error.message)", json: json, code: "configuration", status: error.status) }
        }
        var seen = Set<String>()
        for account in accounts where !seen.insert(account.login).inserted {
            let message = "user \(account.login) is given more than once (--user, --users)"
            guard readingFile else { throw ValidationError(message) }
            Diagnostics.fail("parley switch: \(message)", json: json, code: "configuration", status: ExitStatus.usage)
        }
        for token in tokens {
            guard let equals = token.lastIndex(of: "="), equals != token.startIndex, token.index(after: equals) != token.endIndex else {
                throw ValidationError("a token must be written TOKEN=LOGIN")
            }
            let login = String(token[token.index(after: equals)...])
            let value = String(token[..<equals])
            if let index = accounts.firstIndex(where: { $0.login == login }) {
                accounts[index].tokens.append(value)
            } else {
                accounts.append(SwitchAccount(login: login, tokens: [value]))
            }
        }
        return accounts
    }

    func runLongRunning() async throws {
        var configuration = SwitchConfiguration(accounts: try accounts(readingFile: true))
        configuration.detachTimeout = detachTimeout
        configuration.pingInterval = pingInterval
        configuration.pingTimeout = pingTimeout
        configuration.noAnswerTimeout = noAnswerTimeout
        configuration.servesSoftphone = web
        configuration.domain = domain
        let embedded: EmbeddedSwitch
        do {
            embedded = try await EmbeddedSwitch.start(listen: try WebSocketURL(parsing: listen), configuration: configuration,
                                                      certificatePath: certificate, privateKeyPath: privateKey)
        } catch {
            Diagnostics.fail("parley switch: \(error)", json: json, code: "switch.listen")
        }
        if json {
            JSONEvents.emit("listening", ListeningPayload(url: embedded.url.description, addresses: embedded.addresses, users: configuration.accounts.map(\.login)))
        } else {
            Diagnostics.say("parley switch: listening on \(embedded.url) (\(embedded.addresses.joined(separator: ", "))) for \(configuration.accounts.map(\.login).joined(separator: ", "))")
        }
        // ws://… becomes http://…, wss://… https://…: the page is on the WebSocket's own port.
        if web { Diagnostics.say("parley switch: softphone at http\(embedded.url.description.dropFirst(2))") }
        let metrics = try await metricsFlags.start(json: json, dialect: .verto)
        metrics?.ready(true)
        // SIGINT or SIGTERM: every client is told (a bye per call, a 1001 close frame), then the
        // activity stream ends and so does the command, with status 0.
        let interruption = Interruption()
        // Unstructured: waits for a signal while `run` serves; cancelled when the switch stops by itself.
        let shutdown = Task {
            for await _ in interruption.signals {
                await embedded.shutDown()
                return
            }
        }
        defer { shutdown.cancel() }
        for await activity in embedded.activity {
            SwitchMetrics.record(activity)
            if json {
                JSONEvents.emit("switch", ActivityPayload(activity))
            } else {
                Diagnostics.say("parley switch: \(ActivityPayload(activity).text)")
            }
        }
    }
}

private struct ListeningPayload: Encodable {
    let url: String
    let addresses: [String]
    let users: [String]
}

private struct ActivityPayload: Encodable {
    let kind: String
    let login: String?
    let callID: String?
    let detail: String?
    let text: String

    init(_ activity: SwitchActivity) {
        switch activity {
        case .loggedIn(let login, let peer):
            (kind, self.login, callID, detail, text) = ("login", login, nil, peer, "\(login) logged in from \(peer)")
        case .loginTakesOver(let login, let peer, let previousPeer):
            (kind, self.login, callID, detail, text) = ("login-takes-over", login, nil, peer,
                                                        "\(login) logged in again from \(peer): new calls go there; the session from \(previousPeer) keeps its calls")
        case .loginRefused(let reason, let peer):
            (kind, login, callID, detail, text) = ("login-refused", nil, nil, reason, "refused a login from \(peer): \(reason)")
        case .disconnected(let login, let count):
            (kind, self.login, callID, detail, text) = ("disconnected", login, nil, "\(count) calls detached",
                                                        "\(login) disconnected" + (count > 0 ? "; \(count) call(s) wait for it to return" : ""))
        case .callRouted(let id, let from, let to):
            (kind, login, callID, detail, text) = ("call", from, id, to, "call \(id): \(from) → \(to)")
        case .callAnswered(let id):
            (kind, login, callID, detail, text) = ("answered", nil, id, nil, "call \(id) answered")
        case .callEnded(let id, let cause):
            (kind, login, callID, detail, text) = ("ended", nil, id, cause, "call \(id) ended: \(cause)")
        case .callTransferred(let id, let to, let forwarded):
            (kind, login, callID, detail, text) = (forwarded ? "forwarded" : "transferred", nil, id, to,
                                                    "call \(id) \(forwarded ? "forwarded" : "transferred") to \(to)")
        case .callsReattached(let login, let count):
            (kind, self.login, callID, detail, text) = ("reattached", login, nil, "\(count)", "\(login) is back; \(count) call(s) re-offered")
        case .callRated(let rated):
            (kind, login, callID, detail, text) = ("rated", rated.login, rated.callID, "\(rated.rating) \(rated.issue)",
                                                   "\(rated.login) rated call \(rated.callID) \(rated.rating) (\(rated.issue))")
        }
    }

    enum CodingKeys: String, CodingKey { case kind, login, callID = "call", detail }
}
