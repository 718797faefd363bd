/// Blind transfer, the way FreeSWITCH's verto client asks for it: a `modify` whose `action` is
/// `transfer` and whose `destination` names the new far end (docs/verto-protocol.md §5.7). The
/// server moves the other party of the call there; a client forwarding a call it has not answered
/// sends the same request.
extension VertoSession {
    @discardableResult
    package mutating func transfer(callID: String, destination: String, now: Double) throws(SignalingError) -> JSONRPCID {
        var params: [String: JSONValue] = ["sessid": .string(sessid), "User-Agent": .string(configuration.userAgent),
                                           "dialogParams": ["callID": .string(callID)]]
        params["action"] = "transfer"
        params["destination"] = .string(destination)
        return try request("modify", params: .object(params), now: now)
    }
}

extension VertoClient {
    /// Asks the server to move the other party of `callID` to `destination`; returns once it did.
    package func transfer(callID: String, destination: String) async throws(SignalingError) {
        _ = try await perform { session, now throws(SignalingError) in try session.transfer(callID: callID, destination: destination, now: now) }
    }
}
