import Signaling

/// The SIP dialogs one `Call` goes through (docs/sip.md, "Transfer"): the first, and after each
/// REFER of the peer's that the call follows, the INVITE to its target, a new dialog under a new
/// Call-ID (RFC 3515 §2.4.3: the referred request is a new one). The call speaks to the latest;
/// the ones before it end with it (BYE) and close with it.
actor SIPCallLegs: CallSignalling {
    private var current: SIPCallSignalling
    private var earlier: [SIPCallSignalling] = []
    /// The dialog a new INVITE replaces (RFC 3891), ended with BYE once ours answers that INVITE.
    private var replaced: SIPCallSignalling?
    private weak var call: Call?
    /// A new dialog's signalling, routed by the phone under its own Call-ID; nil once the phone is gone.
    private let newLeg: @Sendable () async -> SIPCallSignalling?

    init(first: SIPCallSignalling, newLeg: @escaping @Sendable () async -> SIPCallSignalling?) {
        current = first
        self.newLeg = newLeg
    }

    /// The dialog the call speaks to now.
    var latest: SIPCallSignalling { current }

    func bind(to call: Call) async {
        self.call = call
        await current.bind(to: call)
    }

    /// Our INVITE; when the current dialog accepted a REFER the call now follows, it goes out on
    /// a new dialog, carrying the REFER's Referred-By, and its progress is told to the referrer.
    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String? {
        var options = options
        if let referral = await current.takeAcceptedReferral() {
            guard let call, let next = await newLeg() else { throw ParleyError(kind: .callState, message: "the SIP phone is closed: the transfer cannot be followed") }
            await next.bind(to: call)
            await next.reportProgress(to: current)
            if let referredBy = referral.referredBy {
                options.headers.append(CustomHeader(name: "Referred-By", value: referredBy))
            }
            // Attended transfer (RFC 3891): the target's call with the referrer is the one ours
            // replaces; required, so that a target without Replaces refuses (420) rather than rings.
            if let replaces = referral.replaces {
                options.headers.append(CustomHeader(name: SIPReplaces.header.canonical, value: replaces.value))
                options.headers.append(CustomHeader(name: SIPReliableProvisionals.require.canonical, value: SIPReplaces.option))
            }
            earlier.append(current)
            current = next
        }
        return try await current.invite(callID: callID, destination: destination, options: options, sdp: sdp, trickle: trickle)
    }

    /// An INVITE with Replaces takes `old`'s place: the call speaks to `next` from now on, and
    /// `old` no longer speaks for it.
    func replace(_ old: SIPCallSignalling, with next: SIPCallSignalling) async {
        guard let call else { return }
        await next.bind(to: call)
        await old.letGo()
        earlier.append(current)
        current = next
        replaced = old
    }

    /// Our answer; after an INVITE with Replaces, the replaced dialog then ends with BYE (RFC 3891 §3).
    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        try await current.answer(callID: callID, sdp: sdp, trickle: trickle)
        if let replaced {
            self.replaced = nil
            await replaced.bye(cause: .normalClearing)
        }
    }

    func hangup(callID: String, cause: HangupCause) async {
        await current.hangup(callID: callID, cause: cause)
        for leg in earlier { await leg.hangup(callID: callID, cause: cause) }
    }

    func close() async {
        await current.close()
        for leg in earlier { await leg.close() }
    }

    func open(callID: String) async throws(ParleyError) { try await current.open(callID: callID) }
    func answer(callID: String, offer: String) async throws(ParleyError) -> String { try await current.answer(callID: callID, offer: offer) }
    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) { try await current.earlyMedia(callID: callID, sdp: sdp, trickle: trickle) }
    func ringing(callID: String) async { await current.ringing(callID: callID) }
    func hold(callID: String, _ held: Bool) async throws(ParleyError) { try await current.hold(callID: callID, held) }
    func transfer(callID: String, destination: String) async throws(ParleyError) { try await current.transfer(callID: callID, destination: destination) }
    func sendDTMF(callID: String, digits: String) async throws(ParleyError) { try await current.sendDTMF(callID: callID, digits: digits) }
    func candidate(callID: String, line: String) async { await current.candidate(callID: callID, line: line) }
    func endOfCandidates(callID: String) async { await current.endOfCandidates(callID: callID) }
    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String { try await current.updateMedia(callID: callID, offer: offer) }
    func reattach(callID: String, sdp: String) async throws(ParleyError) { try await current.reattach(callID: callID, sdp: sdp) }
    func waitUntilReady(within timeout: Duration) async -> Bool { await current.waitUntilReady(within: timeout) }
}
