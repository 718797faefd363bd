/// Reliable provisional responses (RFC 3262, "100rel"), both roles, without I/O.
///
/// As UAC: a 1xx that says `Require: 100rel` and carries an `RSeq` is acknowledged with a PRACK
/// in its early dialog (`prack(for:invite:)`), once per RSeq and in order: a repeated or
/// out-of-order RSeq is not (§4; the PRACK's own transaction retransmits it). Each PRACK takes the
/// next CSeq of our side, so the dialog's later requests must go above `highestSequence`.
///
/// As UAS: `reliable(_:)` makes a 1xx reliable (`Require: 100rel`, the next `RSeq`) and holds it
/// unacknowledged until `acknowledge(_:)` takes the PRACK whose `RAck` names it.
package struct SIPReliableProvisionals: Sendable, Equatable {
    package static let option = "100rel"
    package static let rseq: SIPHeaderName = "RSeq"
    package static let rack: SIPHeaderName = "RAck"
    package static let require: SIPHeaderName = "Require"

    /// The RSeq last acknowledged in each early dialog, by the far end's To tag.
    private var acknowledgedRSeq: [String: UInt32] = [:]
    /// The CSeq our last PRACK carried; 0 before any.
    package private(set) var highestSequence: UInt32 = 0

    /// Our reliable 1xx awaiting its PRACK: its RSeq and the INVITE's CSeq number.
    package private(set) var unacknowledged: (rseq: UInt32, cseq: UInt32)?
    private var nextRSeq: UInt32

    /// RFC 3262 §3: the first RSeq is random, between 1 and 2³¹ - 1.
    package init(firstRSeq: UInt32 = UInt32.random(in: 1...(1 << 31) - 1)) {
        nextRSeq = firstRSeq
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.acknowledgedRSeq == rhs.acknowledgedRSeq && lhs.highestSequence == rhs.highestSequence
            && lhs.unacknowledged?.rseq == rhs.unacknowledged?.rseq && lhs.unacknowledged?.cseq == rhs.unacknowledged?.cseq
            && lhs.nextRSeq == rhs.nextRSeq
    }

    // MARK: UAC

    /// The RAck value and CSeq number for a PRACK of this 1xx to our INVITE, or nil when it asks
    /// for none: not reliable, a 100, no To tag, or an RSeq we acknowledged already or that skips one.
    package mutating func prack(for response: SIPMessage, invite: SIPMessage) -> (rack: String, sequence: UInt32)? {
        guard let status = response.status, (101..<200).contains(status), Self.names(Self.option, in: response, Self.require),
              let tag = try? response.to().tag, let field = response.header(Self.rseq),
              let rseq = UInt32(Self.trimmed(field.value)), rseq > 0,
              let cseq = try? response.cseq() else { return nil }
        if let last = acknowledgedRSeq[tag], rseq != last &+ 1 { return nil }
        acknowledgedRSeq[tag] = rseq
        let inviteSequence = (try? invite.cseq().number) ?? cseq.number
        highestSequence = max(highestSequence, inviteSequence) + 1
        return ("\(rseq) \(cseq.number) \(cseq.method)", highestSequence)
    }

    // MARK: UAS

    /// Whether the peer's INVITE lets (`Supported`) or makes (`Require`) us send 1xx reliably.
    package static func offered(by request: SIPMessage) -> Bool {
        names(option, in: request, .supported) || required(by: request)
    }

    package static func required(by request: SIPMessage) -> Bool { names(option, in: request, require) }

    /// Makes our 1xx to `request` reliable and holds it until its PRACK.
    package mutating func reliable(_ response: SIPMessage, to request: SIPMessage) -> SIPMessage {
        var reliable = response
        reliable.append(SIPHeader(Self.require, Self.option))
        reliable.append(SIPHeader(Self.rseq, String(nextRSeq)))
        unacknowledged = (nextRSeq, (try? request.cseq().number) ?? 0)
        nextRSeq = nextRSeq == (1 << 31) - 1 ? 1 : nextRSeq + 1
        return reliable
    }

    /// A PRACK: true when its RAck names our unacknowledged 1xx (which it acknowledges), false
    /// when it matches nothing (§3: answered 481).
    package mutating func acknowledge(_ prack: SIPMessage) -> Bool {
        guard let pending = unacknowledged, let field = prack.header(Self.rack) else { return false }
        let parts = field.value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 3, UInt32(parts[0]) == pending.rseq, UInt32(parts[1]) == pending.cseq, parts[2] == "INVITE" else { return false }
        unacknowledged = nil
        return true
    }

    /// Gives up the unacknowledged 1xx (no PRACK within 64·T1).
    package mutating func abandon() { unacknowledged = nil }

    private static func trimmed(_ value: String) -> String { value.filter { $0 != " " && $0 != "\t" } }

    private static func names(_ option: String, in message: SIPMessage, _ field: SIPHeaderName) -> Bool {
        message.values(field).contains { Self.trimmed($0.value).lowercased() == option }
    }
}
