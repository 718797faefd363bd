/// Messages RFC 3261 derives from another: the ACK a transaction sends for a non-2xx final
/// response, the CANCEL of a pending request, and a response to a request.
extension SIPMessage {
    /// §17.1.1.3: the Request-URI, Call-ID, From, Route fields and CSeq number of the request,
    /// its top Via only, the response's To (with the tag the response added).
    static func ack(for request: SIPMessage, finalResponse response: SIPMessage) -> SIPMessage {
        sameTransaction("ACK", as: request, to: response.header(.to))
    }

    /// §9.1: the CANCEL of a request we sent (an INVITE still unanswered): its Request-URI,
    /// Call-ID, From, To, Route fields and CSeq number, its top Via, method CANCEL. It goes in its
    /// own client transaction, whose key shares the INVITE's branch.
    package static func cancel(of request: SIPMessage) -> SIPMessage {
        sameTransaction("CANCEL", as: request, to: request.header(.to))
    }

    /// A request that shares `request`'s branch, Request-URI, route, parties and CSeq number.
    private static func sameTransaction(_ method: String, as request: SIPMessage, to: SIPHeader?) -> SIPMessage {
        var headers: [SIPHeader] = []
        if let via = request.values(.via).first { headers.append(SIPHeader(.via, via.value)) }
        headers += request.headers(.route).map { SIPHeader(.route, $0.value) }
        headers.append(SIPHeader(.maxForwards, "70"))
        headers += [request.header(.from), to, request.header(.callID)].compactMap { $0 }.map { SIPHeader($0.name, $0.value) }
        let number = (try? request.cseq().number) ?? 0
        headers.append(SIPHeader(.cseq, SIPCSeq(number: number, method: method).description))
        return .request(method: method, uri: request.requestURI ?? "", headers: headers)
    }

    /// §8.2.6.2: a response copying the request's Via fields, From, To, Call-ID and CSeq, with
    /// `toTag` added to To when it has none (every response but 100 should carry one).
    package static func response(to request: SIPMessage, status: Int, reason: String, toTag: String? = nil,
                                 headers extra: [SIPHeader] = [], body: [UInt8] = []) -> SIPMessage {
        var headers = request.headers(.via).map { SIPHeader(.via, $0.value) }
        if let from = request.header(.from) { headers.append(SIPHeader(.from, from.value)) }
        if let to = request.header(.to) {
            var value = to.value
            if let toTag, let address = try? SIPNameAddress(parsing: value), address.tag == nil {
                var tagged = address
                tagged.parameters.append("tag", toTag)
                value = tagged.description
            }
            headers.append(SIPHeader(.to, value))
        }
        headers += [request.header(.callID), request.header(.cseq)].compactMap { $0 }.map { SIPHeader($0.name, $0.value) }
        return .response(status: status, reason: reason, headers: headers + extra, body: body)
    }
}
