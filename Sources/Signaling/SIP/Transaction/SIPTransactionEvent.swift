/// What the transaction layer reports to its user (the registration, the dialogs).
package enum SIPTransactionEvent: Sendable, Equatable {
    /// A response to one of our requests: provisional, final, or (RFC 6026) a retransmitted 2xx
    /// to an INVITE, which the user answers with another ACK.
    case response(SIPTransactionKey, SIPMessage)
    /// A new request from a peer; answer it with `SIPTransactionLayer.respond`.
    case request(SIPTransactionKey, SIPMessage)
    /// An ACK to a 2xx: no transaction of its own (RFC 3261 §17.1.1.3), for the dialog.
    case ackForSuccess(SIPMessage)
    /// A response that matches no transaction, such as a 2xx retransmitted after ours ended.
    case strayResponse(SIPMessage)
    /// A client transaction had no final response in time (Timer B or F), or a server INVITE
    /// transaction's final response was never acknowledged (Timer H).
    case timedOut(SIPTransactionKey)
    /// A received message that could not be read; it was dropped.
    case malformed(SIPParseError)
}

/// A request or response the user handed the layer that it cannot send.
package enum SIPTransactionError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(SIPParseError)
    case duplicate(SIPTransactionKey)
    case noSuchTransaction(SIPTransactionKey)
    /// A response on a server transaction that has sent its final one (or a 1xx after a 2xx).
    case alreadyAnswered(SIPTransactionKey)
    case notARequest

    package var description: String {
        switch self {
        case .malformed(let error): "cannot send the message: \(error)"
        case .duplicate(let key): "a transaction \(key) is already running"
        case .noSuchTransaction(let key): "no transaction \(key)"
        case .alreadyAnswered(let key): "the transaction \(key) has already sent its final response"
        case .notARequest: "a client transaction starts with a request"
        }
    }
}
