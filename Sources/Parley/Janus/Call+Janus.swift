import Logging
import Signaling

extension Call {
    /// Calls `destination` on the Janus server at `url` (its WebSocket API): a session, the
    /// destination's plugin, and media negotiated in the plugin message. Returns once Janus has
    /// answered; the call is active when DTLS has secured its media. AudioBridge: creates the
    /// room (48 kHz, Opus) when it does not exist, then joins as `display`.
    ///
    /// Janus has no re-login: a failed media path or a network change restarts ICE on the same
    /// handle, and a call whose restart Janus refuses, or whose session is lost, ends.
    public static func janus(url: WebSocketURL, destination: JanusDestination, display: String = "parley", media: MediaOptions,
                             reconnectTimeout: Duration = .seconds(60), logger: Logger = Logger(label: "parley.janus")) async throws(ParleyError) -> Call {
        let signalling = JanusCallSignalling(url: url, destination: destination, display: display, logger: logger)
        let call = Call(id: destination.description, direction: .outgoing, remoteParty: destination.description, signalling: signalling, media: media,
                        logger: logger, reconnectTimeout: reconnectTimeout, onPathLost: { call in await call.restartMediaOrEnd() })
        await signalling.bind(to: call)
        try await call.dial(destination: destination.description, options: DialOptions())
        await call.watchNetwork()
        return call
    }
}
