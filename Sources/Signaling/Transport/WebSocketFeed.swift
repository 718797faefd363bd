import CWebSockets
import Synchronization

/// A client socket that streams: every message it receives is handed to the feed on the
/// service thread (no event stream, no actor hop per message), and whatever the feed has to send
/// is pulled on the same thread when the socket is writable. Parley's agent calls stream 50 audio
/// frames a second each way this way (docs/agents.md); the service thread never waits on a feed.
package protocol WebSocketFeed: AnyObject, Sendable {
    /// A whole message received, text or binary. Called on the service thread; the bytes are
    /// valid only during the call.
    func received(_ message: UnsafeRawBufferPointer, binary: Bool)
    /// Writes the next message to send into `buffer` and returns its length and kind, or nil when
    /// nothing waits. Called on the service thread when the socket is writable.
    func nextMessage(into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool)?
    /// True when `nextMessage` would return something; read on the service thread after a wake.
    var hasPending: Bool { get }
}

extension WebSocketService {
    /// The most one feed message may take, text or binary (a 20 ms frame at 48 kHz as base64 in
    /// JSON is about 2.6 KB; a control message a few hundred bytes).
    static let feedMessageCapacity = 16_384
}

/// Asks the service thread to look at every feed for something to send. Called from the media
/// clock threads once per frame: the first caller since the last look writes to the service's
/// wake-up pipe, the others only read an atomic, so no lock is taken and nothing allocated.
package enum WebSocketFeeds {
    static let pending = Atomic<Bool>(false)

    package static func wake() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        WebSocketService.shared.wakeForFeeds()
    }
}
