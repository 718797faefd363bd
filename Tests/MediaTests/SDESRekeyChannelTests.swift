@testable import Media
import Testing

/// An SDES re-key (RFC 4568 §7.1.4) on the secure channel with real libsrtp contexts: the peer's
/// new key takes its packets at once, its old one only those in flight before the first new one,
/// and our own new key, when we change it, protects what we send.
@Suite struct SDESRekeyChannelTests {
    private let oldRemote = [UInt8](repeating: 0x21, count: 30)
    private let newRemote = [UInt8](repeating: 0x43, count: 30)
    private let local = [UInt8](repeating: 0x65, count: 30)

    private func protected(_ sequence: UInt16, with context: SRTPContext) throws -> [UInt8] {
        var buffer = rtpPacket(sequence: sequence) + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
        let length = try buffer.withUnsafeMutableBytes { try context.protectRTP($0, length: 172) }
        return Array(buffer.prefix(length))
    }

    @Test func thePeersNewKeyTakesItsPacketsAndTheOldOneOnlyThoseInFlight() throws {
        let profile = SRTPProfile.aes128CMHMACSHA1_80
        let channel = try SecureMediaChannel(security: .sdes(SRTPKeyingMaterial(profile: profile, localMasterKey: local, remoteMasterKey: oldRemote)),
                                             transport: SentDatagrams())
        let oldSender = try SRTPContext(profile: profile, masterKey: oldRemote, direction: .outbound)
        let newSender = try SRTPContext(profile: profile, masterKey: newRemote, direction: .outbound)
        #expect(try protected(1, with: oldSender).withUnsafeBytes { channel.receive($0) } == .rtp(length: 172))

        let sender = try channel.rekey(SRTPKeyingMaterial(profile: profile, localMasterKey: local, remoteMasterKey: newRemote), local: false)
        #expect(sender == nil)
        // Sent before the peer heard our answer: the old key still takes it.
        #expect(try protected(2, with: oldSender).withUnsafeBytes { channel.receive($0) } == .rtp(length: 172))
        #expect(try protected(3, with: newSender).withUnsafeBytes { channel.receive($0) } == .rtp(length: 172))
        // Once the new key has taken a packet, the old one is gone.
        #expect(try protected(4, with: oldSender).withUnsafeBytes { channel.receive($0) } == .none)
        #expect(channel.counters.authenticationFailures == 1)
        #expect(try protected(5, with: newSender).withUnsafeBytes { channel.receive($0) } == .rtp(length: 172))
        #expect(channel.state == .secure(profile))
    }

    @Test func ourNewKeyOfANewSuiteProtectsWhatWeSend() throws {
        let transport = SentDatagrams()
        let channel = try SecureMediaChannel(
            security: .sdes(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: local, remoteMasterKey: oldRemote)), transport: transport)
        let newLocal = [UInt8](repeating: 0x77, count: 30)
        let sender = try #require(try channel.rekey(
            SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_32, localMasterKey: newLocal, remoteMasterKey: newRemote), local: true))
        #expect(channel.state == .secure(.aes128CMHMACSHA1_32))
        var buffer = rtpPacket(sequence: 7) + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
        #expect(buffer.withUnsafeMutableBytes { sender.send($0, length: 172, isRTCP: false) })
        var sent = try #require(transport.last)
        // The 32-bit tag of the new suite, under our new key: the peer's context for it takes it.
        #expect(sent.count == 172 + 4)
        let peer = try SRTPContext(profile: .aes128CMHMACSHA1_32, masterKey: newLocal, direction: .inbound)
        #expect(try sent.withUnsafeMutableBytes { try peer.unprotectRTP($0, length: 176) } == 172)
    }
}
