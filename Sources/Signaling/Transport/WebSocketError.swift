import Locking
/// What went wrong with a WebSocket, in words a person can act on.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String, reason: String)
    case connectFailed(String)
    case connectTimedOut(after: Duration)
    case tlsFailed(String)
    case listenFailed(String)
    case notOpen
    case outgoingQueueFull(bytes: Int)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid WebSocket URL \(url): \(reason)"
        case .connectFailed(let reason): "could not connect the WebSocket: \(reason)"
        case .connectTimedOut(let timeout): "the WebSocket did not open within \(Self.format(timeout)) s"
        case .tlsFailed(let reason): "the TLS handshake failed: \(reason)"
        case .listenFailed(let reason): "could not listen: \(reason)"
        case .notOpen: "the WebSocket is not open"
        case .outgoingQueueFull(let bytes): "the WebSocket's outgoing queue is full (\(bytes) bytes waiting)"
        }
    }

    static func format(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Why a received message was not delivered; the connection itself goes on unless `closes` says otherwise.
package enum WebSocketRefusal: Sendable, Equatable, CustomStringConvertible {
    case tooLarge(limit: Int)
    case binary
    case invalidUTF8

    package var description: String {
        switch self {
        case .tooLarge(let limit): "a message larger than \(limit) bytes was refused"
        case .binary: "a binary message was ignored; this protocol is text only"
        case .invalidUTF8: "a text message that is not valid UTF-8 was ignored"
        }
    }
}

/// How a connection ended.
package struct WebSocketClosure: Sendable, Equatable, CustomStringConvertible {
    /// RFC 6455 close code, when a close frame was exchanged.
    package var code: UInt16?
    package var reason: String
    package var initiatedByPeer: Bool
    /// Set when the connection never opened or broke without a close frame.
    package var error: WebSocketError?

    package init(code: UInt16?, reason: String, initiatedByPeer: Bool, error: WebSocketError?) {
        self.code = code
        self.reason = reason
        self.initiatedByPeer = initiatedByPeer
        self.error = error
    }

    package var description: String {
        if let error { return error.description }
        var text = initiatedByPeer ? "closed by the peer" : "closed"
        if let code { text += " with code \(code)" }
        if !reason.isEmpty { text += " (\(reason))" }
        return text
    }
}

package enum WebSocketEvent: Sendable, Equatable {
    /// `endpoints` are the TCP connection's addresses, when the socket could tell them.
    case opened(subprotocol: String?, endpoints: SocketEndpoints?)
    case text(String)
    case refused(WebSocketRefusal)
    case closed(WebSocketClosure)
}

/// RFC 6455 §7.4.1 codes Parley sends.
package enum WebSocketCloseCode {
    package static let normal: UInt16 = 1000
    package static let goingAway: UInt16 = 1001
    static let protocolError: UInt16 = 1002
    package static let messageTooBig: UInt16 = 1009
}
