@testable import Parley
import Testing

/// Answers to a peer's offer inside an established SIP call (re-INVITE, UPDATE) that keeps the
/// media: the direction mirrored, the DTLS role kept, the `o=` version raised only on a change,
/// and no `mid`/BUNDLE the offer did not name (linphone refuses such an answer); and our own
/// hold's and resume's re-offers.
struct SIPSessionRefreshTests {
    static let ours = "v=0\r\no=- 7 3 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
        + "a=mid:0\r\na=ice-ufrag:ours\r\na=setup:active\r\na=sendrecv\r\n"
    static let theirs = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 4000 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:theirs\r\na=setup:actpass\r\n"

    static func offer(_ direction: String, ufrag: String = "theirs", extra: String = "") -> String {
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n\(extra)m=audio 4000 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:\(ufrag)\r\n\(direction)"
    }

    @Test func aSendonlyOfferHoldsAndIsAnsweredRecvonlyWithTheNextVersion() throws {
        let refresh = try SIPSessionRefresh.answer(offer: Self.offer("a=sendonly\r\n"), local: Self.ours, version: 3, remote: Self.theirs)
        #expect(refresh.offered == .sendonly)
        #expect(refresh.offered.holds)
        #expect(SIPSessionRefresh.direction(of: refresh.sdp) == .recvonly)
        #expect(SIPSessionRefresh.version(of: refresh.sdp) == 4)
        #expect(SIPSessionRefresh.attribute("ice-ufrag", in: refresh.sdp) == "ours")
        #expect(SIPSessionRefresh.attribute("setup", in: refresh.sdp) == "active")
    }

    @Test func anUnchangedRefreshIsAnsweredWithTheSameDescription() throws {
        let withBundle = Self.offer("a=sendrecv\r\na=mid:0\r\n", extra: "a=group:BUNDLE 0\r\n")
        let refresh = try SIPSessionRefresh.answer(offer: withBundle, local: Self.ours, version: 3, remote: Self.theirs)
        #expect(refresh.sdp == Self.ours)
        #expect(!refresh.offered.holds)
    }

    @Test func inactiveHoldsAndAnOfferWithoutDirectionIsSendrecv() throws {
        #expect(try SIPSessionRefresh.answer(offer: Self.offer("a=inactive\r\n"), local: Self.ours, version: 3, remote: Self.theirs).offered.holds)
        let plain = try SIPSessionRefresh.answer(offer: Self.offer(""), local: Self.ours, version: 3, remote: Self.theirs)
        #expect(plain.offered == .sendrecv)
        #expect(SIPSessionRefresh.direction(of: plain.sdp) == .sendrecv)
    }

    /// A desk phone's old way to hold (RFC 3264 §8.4): c=0.0.0.0 with a=sendrecv or no direction
    /// holds us, and its real address again resumes; with ICE, 0.0.0.0 is only a default.
    @Test func anUnspecifiedAddressWithoutICEIsAnOldStyleHold() throws {
        func phone(_ address: String, _ direction: String, atSession: Bool = false) -> String {
            let connection = "c=IN IP4 \(address)\r\n"
            return "v=0\r\no=- 1 2 IN IP4 10.0.0.9\r\ns=-\r\n\(atSession ? connection : "")t=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
                + (atSession ? "" : connection) + direction
        }
        #expect(SIPSessionRefresh.direction(of: phone("0.0.0.0", "a=sendrecv\r\n")) == .sendonly)
        #expect(SIPSessionRefresh.direction(of: phone("0.0.0.0", "", atSession: true)) == .sendonly)
        #expect(SIPSessionRefresh.direction(of: phone("0.0.0.0", "a=recvonly\r\n")) == .inactive)
        #expect(SIPSessionRefresh.direction(of: phone("10.0.0.9", "a=sendrecv\r\n")) == .sendrecv)
        #expect(SIPSessionRefresh.direction(of: phone("0.0.0.0", "a=ice-ufrag:x\r\na=sendrecv\r\n")) == .sendrecv)
        let classic = phone("10.0.0.9", "a=sendrecv\r\n")
        let ours = "v=0\r\no=- 7 3 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 5000 RTP/AVP 0\r\na=sendrecv\r\n"
        let held = try SIPSessionRefresh.answer(offer: phone("0.0.0.0", "a=sendrecv\r\n"), local: ours, version: 3, remote: classic)
        #expect(held.offered.holds)
        #expect(SIPSessionRefresh.direction(of: held.sdp) == .recvonly)
        #expect(try !SIPSessionRefresh.answer(offer: classic, local: ours, version: 3, remote: classic).offered.holds)
    }

    @Test func aDescriptionWithoutDirectionGetsOneInItsAudioSection() throws {
        let bare = Self.ours.replacingOccurrences(of: "a=sendrecv\r\n", with: "")
        let refresh = try SIPSessionRefresh.answer(offer: Self.offer("a=sendonly\r\n"), local: bare, version: 3, remote: Self.theirs)
        #expect(refresh.sdp.hasSuffix("a=recvonly\r\n"))
    }

    @Test func noMidOrBundleTheOfferDidNotName() throws {
        let refresh = try SIPSessionRefresh.answer(offer: Self.offer("a=sendrecv\r\n"), local: Self.ours, version: 3, remote: Self.theirs)
        #expect(!refresh.sdp.contains("a=mid:"))
        #expect(!refresh.sdp.contains("a=group:"))
        #expect(SIPSessionRefresh.version(of: refresh.sdp) == 4)
    }

    @Test func ourOffersActpassBecomesTheRoleThePeerLeftUs() throws {
        let offered = Self.ours.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass")
        let whenTheyWereActive = Self.theirs.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active")
        let whenTheyWerePassive = Self.theirs.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive")
        let first = try SIPSessionRefresh.answer(offer: Self.offer(""), local: offered, version: 3, remote: whenTheyWereActive)
        let second = try SIPSessionRefresh.answer(offer: Self.offer(""), local: offered, version: 3, remote: whenTheyWerePassive)
        #expect(SIPSessionRefresh.attribute("setup", in: first.sdp) == "passive")
        #expect(SIPSessionRefresh.attribute("setup", in: second.sdp) == "active")
    }

    @Test func ourHoldReoffersSendonlyAndOurResumeSendrecv() {
        let offered = Self.ours.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass")
        let whenTheyWereActive = Self.theirs.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active")
        let hold = SIPSessionRefresh.reoffer(.sendonly, local: offered, version: 3, remote: whenTheyWereActive)
        #expect(SIPSessionRefresh.direction(of: hold) == .sendonly)
        #expect(SIPSessionRefresh.attribute("setup", in: hold) == "passive")
        #expect(SIPSessionRefresh.version(of: hold) == 4)
        #expect(hold.contains("a=mid:0"), "our own offer keeps the media identification it was set up with")
        let resume = SIPSessionRefresh.reoffer(.sendrecv, local: hold, version: 4, remote: whenTheyWereActive)
        #expect(SIPSessionRefresh.direction(of: resume) == .sendrecv)
        #expect(SIPSessionRefresh.version(of: resume) == 5)
        #expect(SIPSessionRefresh.reoffer(.sendrecv, local: resume, version: 5, remote: whenTheyWereActive) == resume)
    }

    @Test func newICECredentialsAreARestartAndRefused() {
        #expect(throws: SIPSessionRefresh.Refusal.iceRestart) {
            try SIPSessionRefresh.answer(offer: Self.offer("a=sendrecv\r\n", ufrag: "fresh"), local: Self.ours, version: 3, remote: Self.theirs)
        }
    }

    /// An answer or re-offer whose SDES line was replaced after it was made (MediaLeg+SDESRekey.swift)
    /// rises one version if it still has ours; one unchanged, or already raised, keeps its own.
    @Test func aDescriptionChangedAfterwardsRisesOneVersionOnce() {
        let changed = Self.ours.replacingOccurrences(of: "a=sendrecv", with: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:x\r\na=sendrecv")
        #expect(SIPSessionRefresh.version(of: SIPSessionRefresh.versioned(changed, local: Self.ours, version: 3)) == 4)
        #expect(SIPSessionRefresh.versioned(Self.ours, local: Self.ours, version: 3) == Self.ours)
        let raised = SIPSessionRefresh.withVersion(4, in: changed)!
        #expect(SIPSessionRefresh.versioned(raised, local: Self.ours, version: 3) == raised)
    }
}
