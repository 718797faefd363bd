import Media
import TestSupport
import Testing

/// The DTLS retransmission timer OpenSSL runs for us: 100 ms, doubling (docs/performance.md,
/// "Call setup"), where OpenSSL's default waits 1 s, then 2 s, then 4 s.
@Suite struct DTLSRetransmissionTests {
    @Test func startsAt100MillisecondsAndDoubles() {
        #expect(DTLSRetransmission.next(after: .zero) == .milliseconds(100))
        #expect(DTLSRetransmission.next(after: .milliseconds(100)) == .milliseconds(200))
        #expect(DTLSRetransmission.next(after: .milliseconds(400)) == .milliseconds(800))
        #expect(DTLSRetransmission.next(after: .seconds(40)) == DTLSRetransmission.maximum)
    }

    /// A ClientHello nobody answers: OpenSSL's own timer, read back, is ours, for the first
    /// flight and for the retransmission after it.
    @Test func openSSLRetransmitsAClientHelloOnOurTimer() async throws {
        let identity = try DTLSIdentity.generate()
        let endpoint = try DTLSEndpoint(identity: identity, role: .client, remoteFingerprint: identity.fingerprint) { _ in }
        endpoint.start()
        #expect(endpoint.datagramsSent == 1)
        let first = try #require(endpoint.retransmissionDue)
        #expect(first > .zero && first <= .milliseconds(100))
        // Bounded: OpenSSL's default would take 1 s; ours is due within 100 ms.
        try await waitUntil("the first retransmission", within: 5) {
            endpoint.poll()
            return endpoint.datagramsSent >= 2
        }
        #expect(endpoint.datagramsSent == 2)
        let second = try #require(endpoint.retransmissionDue)
        #expect(second > .zero && second <= .milliseconds(200))
        #expect(endpoint.state == .handshaking)
    }
}
