import Parley

/// What a call command's exit status says (docs/cli.md).
enum ExitStatus {
    static let normal: Int32 = 0
    /// The call ended for a reason other than a normal clearing (busy, rejected, error, timeout).
    static let callFailed: Int32 = 1
    /// Bad flags or configuration: the status ArgumentParser uses (EX_USAGE).
    static let usage: Int32 = 64
    /// No session: the server could not be reached or refused the login.
    static let notConnected: Int32 = 3
    /// Media could not be set up: ICE, DTLS or codec negotiation failed.
    static let mediaFailed: Int32 = 4
    /// The network went away under the call and it could not be recovered in time.
    static let networkLost: Int32 = 5
    /// `parley call --bot`: the call worked but the bot's verdict is failed (an `expect` step
    /// was not met, or the far end hung up where the script did not expect it).
    static let botFailed: Int32 = 6
    /// `parley call --bot`: this side ended the call (`--duration`, Ctrl-C, `q`, `hangup`)
    /// before the bot's script did: the test did not finish, so it neither passed nor failed.
    static let botAborted: Int32 = 7

    /// Nobody answered the call within its ring timeout (`--ring-timeout`): it ended no-answer.
    static let noAnswer: Int32 = 8

    /// `parley load`: the load generator itself was the bottleneck (SaturationDetector), so its
    /// figures are not the system's and the run cannot pass.
    static let generatorSaturated: Int32 = 9

    /// What `call --help` says of each status (docs/cli.md says the same at more length).
    static let callMeanings: [(status: Int32, meaning: String)] = [
        (normal, "normal end"),
        (callFailed, "the call failed or ended abnormally"),
        (notConnected, "no session (server unreachable, login refused, no WebSocket within 5 s)"),
        (mediaFailed, "media failed (ICE, DTLS, codecs)"),
        (networkLost, "the network or the server went away and the call could not be recovered (reconnect timeout, reconnecting gave up)"),
        (botFailed, "with --bot, the call worked but the bot's verdict is failed"),
        (noAnswer, "nobody answered within --ring-timeout (no-answer, NO_ANSWER 19)"),
        (usage, "bad usage"),
        (LocalInputError.unreadableInput, "a file to read is missing or unreadable"),
    ]

    static func forEnd(_ reason: TerminationReason, failure: ParleyError?) -> Int32 {
        if let failure {
            switch failure.kind {
            case .iceFailed, .turnAuthentication, .dtlsFailed, .noSupportedCodec, .negotiation, .mediaTimeout: return mediaFailed
            case .reconnectTimeout, .reconnectFailed: return networkLost
            case .configuration, .audio: return usage
            // Credentials refused on the call itself (a SIP INVITE placed without registering)
            // are the refused login they would have been at registration.
            case .authenticationFailed: return notConnected
            default: return callFailed
            }
        }
        // A call answered without media ended `no-media`, whoever cleared it.
        if reason.localStatus == .noMedia { return mediaFailed }
        if reason.localStatus == .noAnswer { return noAnswer }
        return reason.isNormal ? normal : callFailed
    }

    static func forSetup(_ error: ParleyError) -> Int32 {
        switch error.kind {
        case .configuration, .audio: usage
        case .reconnectTimeout, .reconnectFailed: networkLost
        case .iceFailed, .turnAuthentication, .dtlsFailed, .noSupportedCodec, .negotiation: mediaFailed
        // The session is up; the call's own program is not (docs/agents.md): the call failed.
        case .agent: callFailed
        default: notConnected
        }
    }
}
