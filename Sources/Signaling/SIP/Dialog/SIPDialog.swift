/// A dialog (RFC 3261 §12): the peer-to-peer relationship an INVITE sets up, named by Call-ID
/// and the two tags, with each side's CSeq, the route set and the remote target that every
/// request inside it uses.
package struct SIPDialog: Sendable, Equatable {
    package struct ID: Sendable, Hashable {
        package let callID: String
        package let localTag: String
        package let remoteTag: String
    }

    package let id: ID
    /// Our From (as UAC) or To (as UAS) and the peer's, tags included.
    package let localParty: SIPNameAddress
    package let remoteParty: SIPNameAddress
    /// The peer's Contact URI, where requests go; a target refresh (re-INVITE, UPDATE) moves it.
    package private(set) var remoteTarget: String
    /// Record-Route as the UAC sees it (reversed) or the UAS (in order); fixed for the dialog.
    package let routeSet: [SIPNameAddress]
    package private(set) var localSequence: UInt32
    /// nil until the peer sends a request inside the dialog (a UAC's dialog starts so).
    package private(set) var remoteSequence: UInt32?
    /// A 1xx with a tag makes an early dialog; the 2xx confirms it.
    package private(set) var isEarly: Bool

    /// The dialog a response to our INVITE creates (§12.1.2): route set from its Record-Route
    /// reversed, remote target from its Contact.
    package init(uacRequest request: SIPMessage, response: SIPMessage) throws(SIPParseError) {
        let to = try response.to()
        guard let remoteTag = to.tag else { throw SIPParseError(.missingHeader, line: response.header(.to)?.line ?? 0, "To: a response that makes a dialog needs a tag") }
        let from = try request.from()
        guard let localTag = from.tag else { throw SIPParseError(.missingHeader, line: request.header(.from)?.line ?? 0, "From: our request has no tag") }
        id = ID(callID: try request.callID(), localTag: localTag, remoteTag: remoteTag)
        localParty = from
        remoteParty = to
        remoteTarget = try Self.target(of: response)
        routeSet = try response.routes(.recordRoute).reversed()
        localSequence = try request.cseq().number
        remoteSequence = nil
        isEarly = (response.status ?? 0) < 200
    }

    /// The dialog our answer to a peer's INVITE creates (§12.1.1): route set from its
    /// Record-Route in order, remote target from its Contact, our tag on To.
    package init(uasRequest request: SIPMessage, localTag: String, early: Bool = false) throws(SIPParseError) {
        let from = try request.from()
        guard let remoteTag = from.tag else { throw SIPParseError(.missingHeader, line: request.header(.from)?.line ?? 0, "From: the request has no tag") }
        var to = try request.to()
        to.parameters.set("tag", localTag)
        id = ID(callID: try request.callID(), localTag: localTag, remoteTag: remoteTag)
        localParty = to
        remoteParty = from
        remoteTarget = try Self.target(of: request)
        routeSet = try request.routes(.recordRoute)
        localSequence = 0
        remoteSequence = try request.cseq().number
        isEarly = early
    }

    private static func target(of message: SIPMessage) throws(SIPParseError) -> String {
        guard let contact = try message.contacts()?.first else {
            throw SIPParseError(.missingHeader, line: 0, "no Contact, which a message that makes a dialog must carry")
        }
        return contact.uri
    }

    /// Requests sent in the early dialog (PRACK, RFC 3262) took CSeq numbers up to `number`:
    /// the dialog's next request goes above them.
    package mutating func skipLocalSequence(past number: UInt32) { localSequence = max(localSequence, number) }

    /// The 2xx to the INVITE arrived (or was sent).
    package mutating func confirm() { isEarly = false }

    /// A request inside the dialog (§12.2.1.1). Its CSeq is one above the last, except ACK and
    /// CANCEL, which reuse the INVITE's (`sequence`). The Request-URI and Route follow the route
    /// set: to a loose router the remote target goes in the Request-URI and the set in Route;
    /// to a strict router its URI is the Request-URI and the remote target ends the Route.
    package mutating func request(_ method: String, via: SIPVia, contact: SIPNameAddress? = nil, sequence: UInt32? = nil,
                                  headers extra: [SIPHeader] = [], body: [UInt8] = []) -> SIPMessage {
        let number: UInt32
        if let sequence {
            number = sequence
        } else {
            localSequence += 1
            number = localSequence
        }
        var requestURI = remoteTarget
        var routes = routeSet.map(\.description)
        if let first = routeSet.first, (try? first.sipURI())?.isLooseRouter == false {
            requestURI = Self.strippedForRequestURI(first.uri)
            routes = routeSet.dropFirst().map(\.description) + ["<\(remoteTarget)>"]
        }
        var headers = [SIPHeader(.via, via.description)]
        headers += routes.map { SIPHeader(.route, $0) }
        headers += [
            SIPHeader(.maxForwards, "70"),
            SIPHeader(.from, localParty.description),
            SIPHeader(.to, remoteParty.description),
            SIPHeader(.callID, id.callID),
            SIPHeader(.cseq, SIPCSeq(number: number, method: method).description),
        ]
        if let contact { headers.append(SIPHeader(.contact, contact.description)) }
        return .request(method: method, uri: requestURI, headers: headers + extra, body: body)
    }

    /// A request from the peer inside the dialog (§12.2.2): its CSeq must rise (a lower one is
    /// answered 500 by the caller), and a target refresh moves the remote target.
    package mutating func receive(_ request: SIPMessage) throws(SIPParseError) {
        let sequence = try request.cseq()
        if request.method != "ACK", request.method != "CANCEL" {
            if let remoteSequence, sequence.number <= remoteSequence {
                throw SIPParseError(.mismatchedHeader, line: request.header(.cseq)?.line ?? 0,
                                    "CSeq \(sequence.number) is not above the dialog's last, \(remoteSequence)")
            }
            remoteSequence = sequence.number
        }
        if request.method == "INVITE" || request.method == "UPDATE", let contact = try request.contacts()?.first {
            remoteTarget = contact.uri
        }
    }

    /// A 2xx to our re-INVITE or UPDATE refreshes the target too (§12.2.1.2).
    package mutating func receiveTargetRefresh(_ response: SIPMessage) throws(SIPParseError) {
        if let contact = try response.contacts()?.first { remoteTarget = contact.uri }
    }

    /// Whether a message belongs to this dialog: its Call-ID and both tags. From and To name the
    /// parties as the request's sender saw them, so a request of ours and its responses carry
    /// our tag in From; a peer's request and our responses to it, in To.
    package func contains(_ message: SIPMessage, requestFromUs: Bool) -> Bool {
        guard let callID = try? message.callID(), callID == id.callID,
              let fromTag = try? message.from().tag, let toTag = try? message.to().tag else { return false }
        return requestFromUs
            ? fromTag == id.localTag && toTag == id.remoteTag
            : fromTag == id.remoteTag && toTag == id.localTag
    }

    /// A strict router's URI as a Request-URI: without the parameters §19.1.1 bars there.
    private static func strippedForRequestURI(_ uri: String) -> String {
        guard var parsed = try? SIPURI(parsing: uri) else { return uri }
        for name in ["method", "ttl"] { parsed.parameters.remove(name) }
        parsed.headers = nil
        return parsed.serialized
    }
}
