@testable import CLI
import Foundation
import Parley
import Testing

/// `--save-sdp` (docs/sdp.md, "Testing your munging"): each SDP's sidecar names the message of
/// the call's own dialect that carried it; an outgoing call's SDPs wait for its name, then are
/// written under it.
@Suite struct SDPRecorderTests {
    private static let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"

    @Test func aSIPCallsSDPsAreCarriedByTheINVITEAndIts200() {
        let message = { (direction: SDPDirection, kind: SDPExchange.Kind) in
            SDPRecorder.message(for: SDPExchange(direction: direction, kind: kind, sdp: Self.sdp), dialect: .sip)
        }
        #expect(message(.sent, .offer) == "INVITE, or the 200 to an INVITE without SDP")
        #expect(message(.received, .offer) == "INVITE, or the 200 to our INVITE without SDP")
        #expect(message(.sent, .answer) == "200 to the INVITE, or the ACK to a 200 that offered")
        #expect(message(.received, .answer) == "200 to the INVITE, or 183 (early media), or the ACK to our offer in a 200")
        #expect(message(.received, .reoffer) == "re-INVITE")
        #expect(message(.sent, .reanswer) == "200 to the re-INVITE")
    }

    @Test func anOutgoingCallsSDPsAreWrittenOnceItIsNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdp-recorder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = try SDPRecorder(directory: directory.path, dialect: .sip, peer: "alice@parley.test")
        recorder.observer(SDPExchange(direction: .sent, kind: .offer, sdp: Self.sdp))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        recorder.name("call-1")
        recorder.observer(SDPExchange(direction: .received, kind: .answer, sdp: Self.sdp))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["call-1-1-sent-offer.json", "call-1-1-sent-offer.sdp", "call-1-2-received-answer.json", "call-1-2-received-answer.sdp"])
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("call-1-1-sent-offer.json"))) as? [String: Any]
        #expect(sidecar?["signalling"] as? String == "INVITE, or the 200 to an INVITE without SDP")
    }
}
