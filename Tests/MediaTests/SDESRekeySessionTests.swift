import Media
import TestSupport
import Testing

/// Two SDES sessions over UDP on loopback, real libsrtp both ways (`SessionPair`), re-keyed in
/// the middle of the call as an SDES re-offer does (RFC 4568 §7.1.4): the audio goes on.
@Suite(.serialized) struct SDESRekeySessionTests {
    private let keyA = [UInt8](repeating: 0x11, count: 30)
    private let keyB = [UInt8](repeating: 0x22, count: 30)

    private func received(_ session: MediaSession) -> Int { session.statistics().packetsReceived }

    /// A's new key, as its re-offer would carry it: B takes it first (our answer), A sends with
    /// it after (the offerer, once it has the answer). Nothing is lost in between.
    @Test func thePeersNewKeyIsTakenAndAudioGoesOnWithoutALostPacket() throws {
        let pair = try SessionPair(codec: .pcmu(payloadType: 0), sourceA: ToneSource(frequency: 440, sampleRate: 8000),
                                   sourceB: ToneSource(frequency: 1000, sampleRate: 8000), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 5) { received(pair.a) >= 25 && received(pair.b) >= 25 })
        let newKeyA = [UInt8](repeating: 0x33, count: 30)
        try pair.b.rekey(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: keyB, remoteMasterKey: newKeyA), local: false)
        try pair.a.rekey(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: newKeyA, remoteMasterKey: keyB), local: true)
        let before = received(pair.b)
        #expect(waitUntil(seconds: 5) { received(pair.b) >= before + 50 }, "B kept receiving A's audio under its new key")
        #expect(pair.b.statistics().srtpAuthenticationFailures == 0)
        #expect(pair.a.statistics().srtpAuthenticationFailures == 0)
        let heard = pair.sinkB.captured.suffix(8000)
        #expect(abs(TestAudio.dominantFrequency(Array(heard), sampleRate: 8000) - 440) <= 10)
    }

    /// A new suite needs new keys both ways: after both switched, each hears the other again.
    @Test func aNewSuiteReKeysBothWaysAndAudioGoesOn() throws {
        let pair = try SessionPair(codec: .pcmu(payloadType: 0), sourceA: ToneSource(frequency: 440, sampleRate: 8000),
                                   sourceB: ToneSource(frequency: 1000, sampleRate: 8000), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 5) { received(pair.a) >= 25 && received(pair.b) >= 25 })
        let newKeyA = [UInt8](repeating: 0x33, count: 30)
        let newKeyB = [UInt8](repeating: 0x44, count: 30)
        try pair.b.rekey(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_32, localMasterKey: newKeyB, remoteMasterKey: newKeyA), local: true)
        try pair.a.rekey(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_32, localMasterKey: newKeyA, remoteMasterKey: newKeyB), local: true)
        let (beforeA, beforeB) = (received(pair.a), received(pair.b))
        #expect(waitUntil(seconds: 5) { received(pair.a) >= beforeA + 50 && received(pair.b) >= beforeB + 50 })
        #expect(pair.a.statistics().srtpProfile == "AES_CM_128_HMAC_SHA1_32")
        // At most the packets in flight while the two switched, one tick or so each way.
        #expect(pair.a.statistics().srtpAuthenticationFailures <= 3)
        #expect(pair.b.statistics().srtpAuthenticationFailures <= 3)
    }
}
