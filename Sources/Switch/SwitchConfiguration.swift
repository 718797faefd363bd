import Foundation
import Signaling

/// A user the switch lets log in.
package struct SwitchAccount: Sendable, Equatable {
    package var login: String
    /// A secret: never logged.
    package var password: String?
    /// `login_token` values that log in as this user. Secrets: never logged.
    package var tokens: [String]
    /// What successive `gatewayState` requests answer; the last one repeats. Tests use this to
    /// play a gateway that takes a while to register, or never does.
    package var gatewayStates: [String]

    package init(login: String, password: String? = nil, tokens: [String] = [], gatewayStates: [String] = ["REGED"]) {
        self.login = login
        self.password = password
        self.tokens = tokens
        self.gatewayStates = gatewayStates.isEmpty ? ["REGED"] : gatewayStates
    }

    /// Parses `alice:secret` as given to `parley switch --user`.
    package init(parsing text: String) throws(SwitchConfigurationError) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw SwitchConfigurationError(reason: "a user must be written LOGIN:PASSWORD")
        }
        let password = String(text[text.index(after: colon)...])
        guard !password.isEmpty else { throw SwitchConfigurationError(reason: "user \(text[..<colon]) has an empty password") }
        self.init(login: String(text[..<colon]), password: password)
    }
}

package struct SwitchConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String
    package var description: String { "invalid switch configuration: \(reason)" }
}

package struct SwitchConfiguration: Sendable {
    package var accounts: [SwitchAccount]
    /// How long a lost session's calls wait for the same sessid to log in again.
    package var detachTimeout: Duration = .seconds(30)
    /// Idle time before the switch pings a client.
    package var pingInterval: Duration = .seconds(30)
    /// How long a pinged client may stay silent before its socket counts as dead and its calls
    /// are detached (TCP alone may not notice a vanished peer for minutes).
    package var pingTimeout: Duration = .seconds(10)
    /// How long a call the switch routes may go unanswered before it ends it NO_ANSWER (19) on
    /// both sides; zero lets it ring until one side gives up.
    package var noAnswerTimeout: Duration = .seconds(60)
    /// How long the switch waits for a client to answer a request it relays (e.g. updateMedia).
    package var relayTimeout: Duration = .seconds(10)
    /// How long a description from a side that trickles is held for a side that may not, waiting
    /// for the sender's end-of-candidates before it goes with the candidates so far
    /// (docs/signaling.md, "Trickle ICE").
    package var candidateWait: Duration = .seconds(2)
    /// Sent on every frame as Telnyx does, so clients can exercise `?voice_sdk_id=` reconnects.
    package var voiceSDKID: String = "VSDK-parley-" + UUID().uuidString.lowercased()
    /// Serve the browser softphone (docs/browser.md) by HTTP GET on the switch's own port.
    package var servesSoftphone = false
    /// The domain of `user@domain` logins (FreeSWITCH's verto users log in so): `bob@DOMAIN` is
    /// `bob`; nil takes any domain (docs/signaling.md, "Embedded switch").
    package var domain: String?

    package init(accounts: [SwitchAccount]) {
        self.accounts = accounts
    }

    /// The account a login names: itself, or `user@domain` for `user` when the domain is ours
    /// (any domain when we have none), as FreeSWITCH matches `bob@example.com` to `bob`.
    func account(login: String) -> SwitchAccount? {
        if let exact = accounts.first(where: { $0.login == login }) { return exact }
        guard let at = login.lastIndex(of: "@"), at != login.startIndex else { return nil }
        let user = String(login[..<at])
        let loginDomain = login[login.index(after: at)...]
        guard !loginDomain.isEmpty, domain.map({ $0.lowercased() == loginDomain.lowercased() }) ?? true else { return nil }
        return accounts.first { $0.login == user }
    }
    func account(token: String) -> SwitchAccount? { accounts.first { $0.tokens.contains(token) } }
}
