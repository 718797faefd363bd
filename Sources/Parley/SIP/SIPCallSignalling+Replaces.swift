import Signaling

/// What an INVITE whose Replaces names this dialog finds (RFC 3891 §3), and how the phone
/// answers it (SIPPhone+Replaces.swift).
enum SIPReplaceable: Sendable {
    /// An answered call: the new INVITE takes its place.
    case confirmed(Call)
    /// Not answered yet: we take no call pickup (481).
    case early
    /// `early-only`, but the dialog was answered (486).
    case answeredButEarlyOnly
    /// The dialog has ended (603).
    case ended
    /// Not this dialog, or one that no longer speaks for a call (481).
    case unknown
}

/// Attended transfer's far side (RFC 3891): this dialog replaced by a new INVITE, and let go.
extension SIPCallSignalling {
    /// Whether `replaces` names this dialog, as its sender sees it: `to-tag` our tag, `from-tag`
    /// the peer's; and how it stands.
    func replaceable(by replaces: SIPReplaces) -> SIPReplaceable {
        if let dialog {
            guard dialog.id.localTag == replaces.toTag, dialog.id.remoteTag == replaces.fromTag else { return .unknown }
            if ended { return .ended }
            if replaces.earlyOnly { return .answeredButEarlyOnly }
            return call.map { .confirmed($0) } ?? .unknown
        }
        guard let offered, localTag == replaces.toTag, (try? offered.request.from().tag) == replaces.fromTag else { return .unknown }
        return ended ? .ended : .early
    }

    /// A new dialog took this one's place: it no longer speaks for the call (the peer's BYE ends
    /// nothing), and ends with our BYE once the new one is answered (`SIPCallLegs`).
    func letGo() {
        call = nil
    }
}
