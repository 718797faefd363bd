/// How a call sends the digits it is asked to (`--dtmf-mode`, docs/calls.md, "DTMF").
public enum DTMFMode: String, Sendable, CaseIterable {
    /// RFC 4733 telephone-events in the RTP when the far end negotiated them; out of band (a
    /// Verto `info` per digit) when it did not.
    case rfc4733
    /// A Verto `telnyx_rtc.info` per digit only, as the Telnyx SDKs send DTMF.
    case info
    /// Both: the events in the RTP (when negotiated) and an `info` per digit. For a far end
    /// that listens to one of them only; one that hears both gets every digit twice.
    case both
}
