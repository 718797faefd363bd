@testable import Parley
import Testing

/// Key presses in SIP INFO: `application/dtmf-relay` (`Signal=`) and `application/dtmf` bodies,
/// RFC 4733 event numbers, and the refusals for other types and unknown keys.
struct SIPInfoDTMFTests {
    static func digit(_ type: String?, _ body: String) throws(SIPInfoDTMF.Failure) -> Character? {
        try SIPInfoDTMF.digit(contentType: type, body: Array(body.utf8))
    }

    @Test func dtmfRelayBodies() throws {
        #expect(try Self.digit("application/dtmf-relay", "Signal=5\r\nDuration=160\r\n") == "5")
        #expect(try Self.digit("Application/DTMF-Relay; charset=utf-8", "Duration= 250\nsignal = #\n") == "#")
        #expect(try Self.digit("application/dtmf-relay", "Signal=11\r\nDuration=100\r\n") == "#")
        #expect(try Self.digit("application/dtmf-relay", "Signal=10\r\n") == "*")
        #expect(try Self.digit("application/dtmf-relay", "Signal=d\r\n") == "D")
    }

    @Test func dtmfBodies() throws {
        #expect(try Self.digit("application/dtmf", "7\r\n") == "7")
        #expect(try Self.digit("application/dtmf", "*") == "*")
    }

    @Test func anInfoWithoutBodyCarriesNoKey() throws {
        #expect(try Self.digit(nil, "") == nil)
        #expect(try Self.digit("application/dtmf-relay", "") == nil)
    }

    @Test func whatWeSendReadsBack() throws {
        for key in "0123456789*#ABCD" {
            #expect(try Self.digit("application/dtmf-relay", SIPInfoDTMF.body(for: key)) == key)
        }
    }

    @Test func otherTypesAndUnknownKeysAreRefused() {
        #expect(throws: SIPInfoDTMF.Failure.unsupportedType) { try Self.digit("text/plain", "5") }
        #expect(throws: SIPInfoDTMF.Failure.unsupportedType) { try Self.digit(nil, "5") }
        #expect(throws: SIPInfoDTMF.Failure.badSignal) { try Self.digit("application/dtmf-relay", "Duration=160\r\n") }
        #expect(throws: SIPInfoDTMF.Failure.badSignal) { try Self.digit("application/dtmf-relay", "Signal=X\r\n") }
        #expect(throws: SIPInfoDTMF.Failure.badSignal) { try Self.digit("application/dtmf-relay", "Signal=16\r\n") }
        #expect(throws: SIPInfoDTMF.Failure.badSignal) { try Self.digit("application/dtmf", "55") }
    }
}
