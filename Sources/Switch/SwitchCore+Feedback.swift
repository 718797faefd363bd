import Signaling

/// A client's rating of a call it was in, as `parley call --feedback` sends it after the call
/// (docs/calls.md, "Feedback"): Exotel's SDK uploads the same with the call's details. Neither
/// Verto nor FreeSWITCH has such a method; this switch takes `<prefix>.feedback`.
package struct SwitchFeedback: Sendable, Equatable, Encodable {
    package static let method = "feedback"
    /// Exotel's list, the same as `CallFeedback.Issue` (CallFeedbackTests holds them equal).
    package static let issues = ["no-issue", "background-noise", "choppy-audio", "high-latency", "no-audio", "echo"]

    package let callID: String
    package let login: String
    package let rating: Int
    package let issue: String

    package init(callID: String, login: String, rating: Int, issue: String) {
        (self.callID, self.login, self.rating, self.issue) = (callID, login, rating, issue)
    }

    enum CodingKeys: String, CodingKey { case callID = "call", login, rating, issue }
}

extension SwitchCore {
    /// Checks and records a rating; the call may have ended long since, so it is not looked up.
    mutating func rate(id: JSONRPCID, params: JSONValue, login: String, peer: Int) {
        guard let callID = params["callID"]?.stringValue, !callID.isEmpty, callID.utf8.count <= 128 else {
            return sendError(id: id, code: -32602, message: "feedback needs the callID of the call it rates", to: peer)
        }
        guard let rating = params["rating"]?.intValue, (1...5).contains(rating) else {
            return sendError(id: id, code: -32602, message: "a call's rating is a whole number from 1 to 5", to: peer)
        }
        let issue = params["issue"]?.stringValue ?? "no-issue"
        guard SwitchFeedback.issues.contains(issue) else {
            return sendError(id: id, code: -32602, message: "unknown call issue; use " + SwitchFeedback.issues.joined(separator: ", "), to: peer)
        }
        actions.append(.activity(.callRated(SwitchFeedback(callID: callID, login: login, rating: rating, issue: issue))))
        sendResult(id: id, ["callID": .string(callID), "message": "OK"], to: peer)
    }
}
