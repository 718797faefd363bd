@testable import Parley
import Signaling
import TestSupport

extension SIPEndpoint {
    /// An endpoint on a UDP flow to `peer` (T1 of 50 ms, so repetitions come quickly) that takes
    /// requests, once the peer has learned its address from a first request and answered it,
    /// as a registrar does (SIPAnswerRepetitionTests, SIPInDialogRequestTests).
    static func opened(toLoopback peer: LoopbackSIPPeer) async throws -> SIPEndpoint {
        var timers = SIPTimers()
        timers.t1 = 0.05
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port)"), timers: timers)
        try await endpoint.open()
        await endpoint.acceptRequests()
        let hello = Task { try await endpoint.request(try SIPMessage.parse(Array(SIPAnswerRepetitionTests.options.utf8))) }
        let first = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
        try peer.send(SIPMessage.response(to: first, status: 200, reason: "OK", toTag: "t").serializedText)
        _ = try await hello.value
        return endpoint
    }
}
