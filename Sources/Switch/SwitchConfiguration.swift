import Foundation
import Signaling

/// A user the switch lets log in.
public struct SwitchAccount: Sendable, Equatable {
    public var login: String
    /// A secret: never logged.
    public var password: String?
    /// `login_token` values that log in as this user. Secrets: never logged.
    public var tokens: [String]
    /// What successive `gatewayState` requests answer; the last one repeats. Tests use this to
    /// play a gateway that takes a while to register, or never does.
    public var gatewayStates: [String]

    public init(login: String, password: String? = nil, tokens: [String] = [], gatewayStates: [String] = ["REGED"]) {
        self.login = login
        self.password = password
        self.tokens = tokens
        self.gatewayStates = gatewayStates.isEmpty ? ["REGED"] : gatewayStates
    }

    /// Parses `alice:secret` as given to `parley switch --user`.
    public init(parsing text: String) throws(SwitchConfigurationError) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw SwitchConfigurationError(reason: "a user must be written LOGIN:PASSWORD")
        }
        let password = String(text[text.index(after: colon)...])
        guard !password.isEmpty else { throw SwitchConfigurationError(reason: "user \(text[..<colon]) has an empty password") }
        self.init(login: String(text[..<colon]), password: password)
    }
}

public struct SwitchConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { "invalid switch configuration: \(reason)" }
}

public struct SwitchConfiguration: Sendable {
    public var accounts: [SwitchAccount]
    /// How long a lost session's calls wait for the same sessid to log in again.
    public var detachTimeout: Duration = .seconds(30)
    /// Idle time before the switch pings a client.
    public var pingInterval: Duration = .seconds(30)
    /// How long a pinged client may stay silent before its socket counts as dead and its calls
    /// are detached (TCP alone may not notice a vanished peer for minutes).
    public var pingTimeout: Duration = .seconds(10)
    /// How long the switch waits for a client to answer a request it relays (e.g. updateMedia).
    public var relayTimeout: Duration = .seconds(10)
    /// Sent on every frame as Telnyx does, so clients can exercise `?voice_sdk_id=` reconnects.
    public var voiceSDKID: String = "VSDK-parley-" + UUID().uuidString.lowercased()
    /// Serve the browser softphone (docs/browser.md) by HTTP GET on the switch's own port.
    public var servesSoftphone = false

    public init(accounts: [SwitchAccount]) {
        self.accounts = accounts
    }

    func account(login: String) -> SwitchAccount? { accounts.first { $0.login == login } }
    func account(token: String) -> SwitchAccount? { accounts.first { $0.tokens.contains(token) } }
}
