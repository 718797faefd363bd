import Signaling
import Testing

/// A metric label (docs/metrics.md) takes the far end's hangup cause only when it is a known name.
struct HangupCauseNameTests {
    @Test func knownCausesKeepTheirNameAndAnyOtherIsOther() {
        #expect(HangupCause.knownName("NORMAL_CLEARING") == "NORMAL_CLEARING")
        #expect(HangupCause.knownName("USER_BUSY") == "USER_BUSY")
        #expect(HangupCause.knownName("ORIGINATOR_CANCEL") == "ORIGINATOR_CANCEL")
        #expect(HangupCause.knownName("x\(String(repeating: "A", count: 4096))") == "other")
        #expect(HangupCause.knownName("normal_clearing") == "other")
        #expect(HangupCause.knownName("") == "other")
    }
}
