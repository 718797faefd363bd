/// What names a transaction (RFC 3261 §17.1.3, §17.2.3): the top Via's branch and the
/// method, where ACK belongs to the INVITE it acknowledges and CANCEL has its own. A server
/// also keys on the Via's sent-by, since two clients may pick the same branch.
package struct SIPTransactionKey: Sendable, Hashable, CustomStringConvertible {
    package let branch: String
    package let method: String
    package let sentBy: String?

    package init(branch: String, method: String, sentBy: String? = nil) {
        self.branch = branch
        self.method = method == "ACK" ? "INVITE" : method
        self.sentBy = sentBy
    }

    /// The key of the client transaction a request starts or a response answers.
    static func client(_ message: SIPMessage) throws(SIPParseError) -> SIPTransactionKey {
        SIPTransactionKey(branch: try branch(of: message), method: try message.cseq().method)
    }

    /// The key of the server transaction a request belongs to.
    static func server(_ request: SIPMessage) throws(SIPParseError) -> SIPTransactionKey {
        let via = try request.topVia()
        return SIPTransactionKey(branch: try branch(of: request), method: request.method ?? "", sentBy: "\(via.host.lowercased()):\(via.port ?? 0)")
    }

    /// The branch, or for a peer of RFC 2543 (no magic cookie) what RFC 3261 §17.2.3 has one
    /// match on instead, folded into one string.
    private static func branch(of message: SIPMessage) throws(SIPParseError) -> String {
        let via = try message.topVia()
        if via.hasRFC3261Branch, let branch = via.branch { return branch }
        let from = try message.from()
        return "rfc2543|\(try message.callID())|\(from.tag ?? "")|\(try message.cseq().number)|\(via)"
    }

    package var description: String { "\(method) \(branch)" }
}
