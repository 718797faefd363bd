import Foundation
import Media
@testable import Parley
import SDP
import TestSupport
import Testing

/// A re-offer or answer that names another certificate or leads to the other setup role starts a
/// new DTLS association on the same media session (docs/media.md, "A new DTLS association").
@Suite struct DTLSAssociationDecisionTests {
    static let first = Fingerprint(hashFunction: "sha-256", value: "AB:CD:EF:01")
    static let second = Fingerprint(hashFunction: "sha-256", value: "12:34:56:78")

    @Test func anotherCertificateIsANewAssociation() {
        let current = DTLSAssociation(remoteFingerprint: Self.first, role: .server)
        #expect(current.isReplaced(by: DTLSAssociation(remoteFingerprint: Self.second, role: .server)))
    }

    @Test func theOtherRoleIsANewAssociation() {
        let current = DTLSAssociation(remoteFingerprint: Self.first, role: .server)
        #expect(current.isReplaced(by: DTLSAssociation(remoteFingerprint: Self.first, role: .client)))
    }

    @Test func theSameCertificateAndRoleKeepTheAssociationWhateverTheCaseOfItsDigits() {
        let current = DTLSAssociation(remoteFingerprint: Self.first, role: .client)
        let lowercased = Fingerprint(hashFunction: "SHA-256", value: "ab:cd:ef:01")
        #expect(!current.isReplaced(by: DTLSAssociation(remoteFingerprint: lowercased, role: .client)))
    }

    @Test func aReofferFromTheSamePeerIsAnsweredWithTheRoleTheAssociationHas() {
        #expect(DTLSAssociation(remoteFingerprint: Self.first, role: .server).answerRole(toOfferFrom: Self.first) == .passive)
        #expect(DTLSAssociation(remoteFingerprint: Self.first, role: .client).answerRole(toOfferFrom: Self.first) == .active)
    }

    @Test func aReofferFromANewCertificateIsAnsweredAsAFirstOffer() {
        #expect(DTLSAssociation(remoteFingerprint: Self.first, role: .server).answerRole(toOfferFrom: Self.second) == .active)
    }
}

/// Two real media legs on loopback (libnice, DTLS, Opus). The far end comes back from a
/// brand-new peer connection (a new certificate, new ICE credentials), as a browser SDK
/// re-attaching after its socket dropped: its answer to our last description reaches us as a
/// re-offer. Our session makes a new DTLS association and media flows again both ways, its
/// statistics going on.
@Suite(.leakChecked, .serialized, .tags(.slow), .notInQuickCheck) struct DTLSReassociationLegTests {
    @Test func aFarEndWithANewCertificateGetsANewAssociationAndMediaBothWays() async throws {
        let options = InteropMedia.options(interface: "lo", codec: "opus", tone: 440, record: nil, vanilla: true)
        let ours = try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger)
        let before = try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)
        afterTest { await ours.stop(); await before.stop() }
        let ourEvents = EventRecorder(ours.events)

        let offer = try await ours.makeOffer()
        try await ours.applyAnswer(try await before.answer(offer))
        _ = try await ourEvents.next("secured") { if case .secured = $0 { true } else { false } }
        try await waitUntil("the first far end's audio") { (await ours.statistics().audio?.packetsReceived ?? 0) >= 25 }
        await before.stop()

        // The far end's new peer connection answers our last description; the server hands it
        // to us as a re-attach re-offer.
        let after = try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)
        afterTest { await after.stop() }
        let sentBefore = await ours.statistics().audio?.packetsSent ?? 0
        let receivedBefore = await ours.statistics().audio?.packetsReceived ?? 0
        let newAnswer = try await after.answer(offer)
        let answeredAt = ContinuousClock.now
        let reanswer = try await ours.answerReoffer(newAnswer, moved: false, keepingCredentials: true)
        #expect(reanswer.restarted)
        for line in try RemoteMedia(MediaLeg.parse(reanswer.sdp)).candidates { await after.addRemoteCandidate(line) }
        _ = try await ourEvents.next("secured again") { if case .secured = $0 { true } else { false } }

        try await waitUntil("the new far end's audio at our end") { (await ours.statistics().audio?.packetsReceived ?? 0) >= receivedBefore + 25 }
        let back = ContinuousClock.now - answeredAt
        try await waitUntil("our audio at the new far end") { (await after.statistics().audio?.packetsReceived ?? 0) >= 25 }
        print("[reassociation] media back \(back) after the far end's new answer")
        #expect(back < .seconds(2))
        // The same session: its counters went on.
        #expect((await ours.statistics().audio?.packetsSent ?? 0) > sentBefore)
    }

    @Test func theSamePeerReofferingKeepsItsAssociation() async throws {
        let options = InteropMedia.options(interface: "lo", codec: "opus", tone: 440, record: nil, vanilla: true)
        let ours = try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger)
        let theirs = try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)
        afterTest { await ours.stop(); await theirs.stop() }
        let ourEvents = EventRecorder(ours.events)
        try await ours.applyAnswer(try await theirs.answer(try await ours.makeOffer()))
        _ = try await ourEvents.next("secured") { if case .secured = $0 { true } else { false } }
        let association = await ours.dtlsAssociation
        let restart = try await theirs.restartOffer()
        let answer = try await ours.answerReoffer(restart, moved: false, keepingCredentials: false)
        try await theirs.applyRestartAnswer(answer.sdp)
        #expect(await ours.dtlsAssociation == association)
        #expect(await ours.handshakeAwaitsPath == false)
        let received = await ours.statistics().audio?.packetsReceived ?? 0
        try await waitUntil("audio after the restart") { (await ours.statistics().audio?.packetsReceived ?? 0) >= received + 25 }
    }
}
