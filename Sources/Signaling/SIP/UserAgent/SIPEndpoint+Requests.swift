extension SIPEndpoint {
    /// A request that starts a transaction outside any dialog (REGISTER, an initial INVITE) from
    /// `account`: the headers RFC 3261 §8.1.1 makes every request carry, a fresh Via, our From
    /// with `fromTag`, a Contact that reaches this flow, then `extra` (Expires, Allow, a digest
    /// answer...).
    package func outOfDialogRequest(
        _ method: String, to uri: String, toHeader: String, from account: SIPAccount, fromTag: String, callID: String,
        sequence: UInt32, contact: String? = nil, extra: [SIPHeader] = [], body: [UInt8] = []
    ) -> SIPMessage {
        var from = SIPNameAddress(displayName: account.displayName, uri: account.addressOfRecord)
        from.parameters.append("tag", fromTag)
        let headers = [
            SIPHeader(.via, newVia().description),
            SIPHeader(.maxForwards, "70"),
            SIPHeader(.from, from.description),
            SIPHeader(.to, toHeader),
            SIPHeader(.callID, callID),
            SIPHeader(.cseq, SIPCSeq(number: sequence, method: method).description),
            SIPHeader(.contact, contact ?? "<\(contactURI(user: account.user))>"),
            SIPHeader(.userAgent, "Parley"),
        ] + extra
        return .request(method: method, uri: uri, headers: headers, body: body)
    }
}
