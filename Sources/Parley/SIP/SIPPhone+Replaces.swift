import Signaling

/// Attended transfer's target side (RFC 3891, docs/sip.md "Transfer and forward"): an INVITE
/// whose Replaces names one of our answered calls takes that call's place. It is not offered as
/// a new call and does not ring: the user took the call it replaces already. The call answers it
/// on a new media leg, and the replaced dialog ends with our BYE.
extension SIPPhone {
    func replacing(_ request: SIPMessage, key: SIPTransactionKey, callID: String) async {
        let fields = request.headers(SIPReplaces.header)
        guard fields.count == 1, let replaces = SIPReplaces(parsing: fields[0].value) else {
            return await refuse(request, key: key, status: 400, reason: "Bad Request (Replaces unreadable)")
        }
        guard !request.body.isEmpty else { return await refuse(request, key: key, status: 488, reason: "Not Acceptable Here") }
        let replaced = calls[replaces.callID]
        let standing = await replaced?.replaceable(by: replaces) ?? .unknown
        guard case .confirmed(let call) = standing, let replaced, let legs = call.signalling as? SIPCallLegs else {
            let (status, reason) = Self.refusal(for: standing)
            logger.info("an INVITE to replace call \(replaces.callID) was refused \(status): \(reason)")
            return await refuse(request, key: key, status: status, reason: reason)
        }
        let next = makeSignalling(callID: callID)
        await next.offer(request, key: key)
        track(next, callID: callID)
        await legs.replace(replaced, with: next)
        let party = SIPCallerID(of: request).number ?? "unknown"
        let offer = String(decoding: request.body, as: UTF8.self)
        // Unstructured: answering gathers a new leg's candidates (seconds); the phone's requests go on meanwhile.
        Task { await call.handle(.replaced(offer: offer, by: party)) }
    }

    /// RFC 3891 §3's answers to a Replaces we do not take.
    static func refusal(for standing: SIPReplaceable) -> (Int, String) {
        switch standing {
        case .answeredButEarlyOnly: (486, "Busy Here")
        case .ended: (603, "Declined")
        case .early, .unknown, .confirmed: (481, "Call/Transaction Does Not Exist")
        }
    }

    private func refuse(_ request: SIPMessage, key: SIPTransactionKey, status: Int, reason: String) async {
        try? await endpoint.respond(to: key, with: .response(to: request, status: status, reason: reason, toTag: RandomIdentifier.token(length: 10)))
    }
}
