import ICE
import Media

/// Carries a media session's datagrams on the UDP sockets of a call without ICE (a classic SIP
/// peer's: `PlainRTPSockets`), RTCP on its own socket unless muxed.
final class PlainMediaTransport: MediaTransport {
    private let sockets: PlainRTPSockets

    init(sockets: PlainRTPSockets) {
        self.sockets = sockets
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        sockets.send(bytes)
    }
}
