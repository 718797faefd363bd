/// The INVITEs a user agent sent, and for those a 2xx accepted, the ACKs it sent each answering
/// dialog: what RFC 3261 §13.2.2.4 asks of a UAC after the transaction layer's Accepted state
/// (RFC 6026) passes it every 2xx until Timer M. A 2xx repeated by a far end whose first ACK was
/// lost on UDP gets the same ACK again; a 2xx with another To tag is a second fork's answer,
/// which the owner acknowledges and ends with BYE (§13.2.2.4: "the UAC ... MUST send a BYE").
/// No I/O and no clock: `SIPEndpoint` feeds it and does what it says.
struct SIPAcceptedInvites: Sendable {
    /// What to do with a 2xx that arrived after the first one of its INVITE.
    enum Repeat: Sendable, Equatable {
        /// The answering dialog's ACK again: the far end did not get the first.
        case acknowledgeAgain(SIPMessage)
        /// A fork's 2xx (another To tag): acknowledge it and hang that dialog up; the INVITE is given.
        case fork(invite: SIPMessage)
        /// The 2xx of the dialog whose ACK is not sent yet (its owner sends it), or of an INVITE
        /// no longer remembered.
        case nothing
    }

    private struct Accepted: Sendable {
        let invite: SIPMessage
        let callID: String
        let sequence: UInt32
        /// The ACK sent for each answering dialog, by its To tag; the first 2xx's tag is in it
        /// from the start, with no ACK until its owner sends one.
        var acks: [String: SIPMessage?]
        let since: Double
    }

    /// How long a 2xx may still come after the first: Timer M, 64·T1.
    let lifetime: Double
    /// INVITEs awaiting their final response.
    private var pending: [SIPTransactionKey: SIPMessage] = [:]
    private var accepted: [SIPTransactionKey: Accepted] = [:]

    init(lifetime: Double) {
        self.lifetime = lifetime
    }

    /// How many INVITEs are remembered, awaiting a final response or accepted (for tests).
    var count: Int { pending.count + accepted.count }

    mutating func sending(_ invite: SIPMessage, key: SIPTransactionKey) {
        guard invite.method == "INVITE" else { return }
        pending[key] = invite
    }

    /// The first final response of `key`'s transaction: a 2xx begins the time its repeats are
    /// answered; any other ends the INVITE.
    mutating func finished(_ response: SIPMessage, key: SIPTransactionKey, now: Double) {
        guard let invite = pending.removeValue(forKey: key) else { return }
        expire(now: now)
        guard let status = response.status, (200..<300).contains(status), let tag = try? response.to().tag,
              let callID = try? invite.callID(), let sequence = try? invite.cseq().number else { return }
        accepted[key] = Accepted(invite: invite, callID: callID, sequence: sequence, acks: [tag: .none], since: now)
    }

    /// The transaction ended without a final response (timed out, given up, the flow closed).
    mutating func forget(_ key: SIPTransactionKey) {
        pending[key] = nil
        accepted[key] = nil
    }

    mutating func forgetAll() {
        pending.removeAll()
        accepted.removeAll()
    }

    /// An ACK the owner sends for a 2xx: kept for that dialog's repeats. An ACK of no accepted
    /// INVITE (same Call-ID and CSeq number, a To tag it was answered with) is not kept.
    mutating func acknowledging(_ ack: SIPMessage) {
        guard ack.method == "ACK", let callID = try? ack.callID(), let sequence = try? ack.cseq().number,
              let tag = try? ack.to().tag else { return }
        guard let key = accepted.first(where: { $0.value.callID == callID && $0.value.sequence == sequence })?.key else { return }
        accepted[key]?.acks.updateValue(ack, forKey: tag)
    }

    /// A 2xx the layer passed after the first of `key`'s transaction.
    mutating func repeated(_ response: SIPMessage, key: SIPTransactionKey) -> Repeat {
        guard let status = response.status, (200..<300).contains(status), let entry = accepted[key], let tag = try? response.to().tag else { return .nothing }
        guard let known = entry.acks[tag] else {
            // Noted now, so the fork's own repeats wait for its ACK instead of a second BYE.
            accepted[key]?.acks.updateValue(nil, forKey: tag)
            return .fork(invite: entry.invite)
        }
        return known.map(Repeat.acknowledgeAgain) ?? .nothing
    }

    private mutating func expire(now: Double) {
        accepted = accepted.filter { now - $0.value.since <= lifetime }
    }
}
