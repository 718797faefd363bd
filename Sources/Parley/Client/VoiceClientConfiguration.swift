import Signaling

/// Everything a `VoiceClient` needs: where to log in, as whom, and how calls carry media.
public struct VoiceClientConfiguration: Sendable {
    public var server: WebSocketURL
    public var credentials: VertoCredentials
    /// `telnyx_rtc` for Telnyx and the embedded switch, `verto` for FreeSWITCH.
    public var methodPrefix = "telnyx_rtc"
    /// Wait for the gateway to register (Telnyx) or only for the login.
    public var readiness: VertoReadiness = .gatewayRegistered
    public var socket = WebSocketOptions()
    public var media = MediaOptions()
    /// Send iOS's optional `telnyx_rtc.ringing_ack` when a call arrives. Off as in the SDKs:
    /// the JS SDK has no such message, iOS sends it only when the app asks
    /// (docs/verto-protocol.md, "What Parley sends").
    public var ringingFeedback = false
    /// Who we are in `login` and call messages, in the SDKs' `<name>-<version>` form.
    public var userAgent = "Parley-\(ParleyVersion.version)"
    public var callerName = ""
    public var callerNumber = ""
    public var reconnection = ReconnectionPolicy()
    /// Calls at once. An invite beyond this is refused with USER_BUSY, counted
    /// (`VoiceClient.refusedIncomingCalls`) and reported (`VoiceClientEvent.refusedCall`), so a
    /// flood of invites cannot grow memory unbounded.
    public var maximumCalls = 64

    public init(server: WebSocketURL, credentials: VertoCredentials) {
        self.server = server
        self.credentials = credentials
    }

    /// The media of a call we dial. FreeSWITCH's mod_verto takes no trickled candidates (it has
    /// no `verto.candidate` method; docs/signaling.md, "Trickle ICE"), so our invite to it carries
    /// them: vanilla ICE, gathering bounded by the default collection timeout.
    func dialMedia(_ media: MediaOptions) -> MediaOptions {
        guard methodPrefix == "verto", case .trickle = media.iceMode else { return media }
        var vanilla = media
        vanilla.iceMode = .vanilla(collectionTimeout: .seconds(3))
        return vanilla
    }

    var verto: VertoConfiguration {
        var configuration = VertoConfiguration(credentials: credentials)
        configuration.methodPrefix = methodPrefix
        configuration.readiness = readiness
        configuration.userAgent = userAgent
        return configuration
    }
}

/// What a client reports on `VoiceClient.events`.
public enum VoiceClientEvent: Sendable {
    case connected
    case disconnected(reason: String)
    /// Logged in (and, for Telnyx, the gateway registered): calls can be made and received.
    case ready
    case incomingCall(IncomingCall)
    /// An invite refused with USER_BUSY before it was reported: `callsInProgress` calls were
    /// already up (`VoiceClientConfiguration.maximumCalls`).
    case refusedCall(callID: String, callsInProgress: Int)
    /// No route to the server is left: calls are dropped until the network returns.
    case networkLost
    /// The socket is down; the next attempt to open it comes after `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    case error(ParleyError)
}
