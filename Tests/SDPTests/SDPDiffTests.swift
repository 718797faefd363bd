import Foundation
import SDP
import Testing

/// `SDPDiff` on each answer fixture against its offer: the changes it lists account for every
/// line the answer changed, per section, and for nothing else; and the big changes read right.
@Suite struct SDPDiffTests {
    static let answers = AnswerFixtureTests.cases.filter {
        FileManager.default.fileExists(atPath: Fixtures.root.appendingPathComponent("answer/\($0)/expected.sdp").path)
    }

    static func pair(_ name: String) throws -> (offer: SessionDescription, answer: SessionDescription) {
        let folder = Fixtures.root.appendingPathComponent("answer/\(name)")
        let input = try Fixtures.text(folder.appendingPathComponent("command")).split(separator: "\n")[0]
        let offer = try SDPParser().parse(bytes: Fixtures.bytes(Fixtures.root.appendingPathComponent(String(input))))
        let answer = try SDPParser().parse(bytes: Fixtures.bytes(folder.appendingPathComponent("expected.sdp")))
        return (offer, answer)
    }

    /// Lines one side has and the other has not, counted with repeats, section by section:
    /// what any correct diff must account for.
    static func lineDifference(_ old: SessionDescription, _ new: SessionDescription) -> (removed: [String], added: [String]) {
        func sections(_ sdp: SessionDescription) -> [[String]] {
            var result: [[String]] = [[]]
            for line in sdp.text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init) {
                if line.hasPrefix("m=") { result.append([]) }
                result[result.count - 1].append(line)
            }
            return result
        }
        let a = sections(old), b = sections(new)
        var removed: [String] = [], added: [String] = []
        for index in 0..<max(a.count, b.count) {
            var pool = index < b.count ? b[index] : []
            for line in index < a.count ? a[index] : [] {
                if let found = pool.firstIndex(of: line) { pool.remove(at: found) } else { removed.append(line) }
            }
            added += pool
        }
        return (removed, added)
    }

    @Test(arguments: answers)
    func diffAccountsForEveryChangedLine(name: String) throws {
        let (offer, answer) = try Self.pair(name)
        let diff = SDPDiff(from: offer, to: answer)
        let expected = Self.lineDifference(offer, answer)
        #expect(diff.removedLines.sorted() == expected.removed.sorted())
        #expect(diff.addedLines.sorted() == expected.added.sorted())
        #expect(!diff.isEmpty)
        // Every m-line of the offer is answered in place, so none is added or removed whole.
        #expect(diff.media.allSatisfy { $0.status == .changed })
    }

    @Test func holdAnswerShowsTheDirectionAsOneChange() throws {
        let (offer, answer) = try Self.pair("chrome-hold-sendonly")
        let audio = try #require(SDPDiff(from: offer, to: answer).media.first)
        let direction = try #require(audio.lines.first { $0.field == "a=direction" })
        #expect(direction.kind == .changed && direction.removed == ["a=sendrecv"] && direction.added == ["a=sendonly"])
    }

    @Test func rejectedVideoShowsPortZero() throws {
        let (offer, answer) = try Self.pair("firefox-video-rejected")
        let video = try #require(SDPDiff(from: offer, to: answer).media.first { $0.kind == "video" })
        #expect(video.mLineDetails.contains { $0.hasPrefix("port ") && $0.hasSuffix("→ 0") })
    }

    @Test func renumberedCodecIsOneChangeNotARemovalAndAnAddition() throws {
        let offer = try SDPParser().parse(bytes: Fixtures.bytes(Fixtures.root.appendingPathComponent("valid/chrome-audio-offer.sdp")))
        let munged = try SDPParser().parse(bytes: Fixtures.bytes(Fixtures.root.appendingPathComponent("munge/chrome-opus-to-105-swaps-cn/expected.sdp")))
        let codecs = try #require(SDPDiff(from: offer, to: munged).media.first).codecs
        #expect(codecs.map(\.codec) == ["opus/48000/2", "CN/16000"])
        #expect(codecs.allSatisfy { $0.kind == .changed })
        #expect(codecs.first?.details == ["payload type 111 → 105"])
    }

    @Test func candidateOrderAndLineEndingsAreNotDifferences() throws {
        let text = try Fixtures.text(Fixtures.root.appendingPathComponent("valid/rtpengine-ice-offer.sdp"))
        let original = try SDPParser().parse(text)
        var reordered = original
        reordered.lineEnding = .lf
        reordered.media[0].attributes.reverse()
        #expect(SDPDiff(from: original, to: reordered).isEmpty)
    }

    @Test func secretsAreRedactedButStillShowAsChanged() throws {
        let (offer, answer) = try Self.pair("chrome-audio-dtls")
        let diff = SDPDiff(from: offer, to: answer).redacted()
        let password = try #require(diff.media.first?.lines.first { $0.field == "a=ice-pwd" })
        #expect(password.kind == .changed && password.added == ["a=ice-pwd:<redacted>"])
    }
}

/// Recorded SDPs (`--save-sdp`) keep every byte but their secrets, and still parse.
@Suite struct MaskedTextTests {
    @Test(arguments: ["asterisk-sdes-answer.sdp", "chrome-audio-offer.sdp", "rfc8866-example.sdp", "rfc4317-audio-video-1-offer.sdp"])
    func masksSecretsAndStillParses(name: String) throws {
        let text = try Fixtures.text(Fixtures.root.appendingPathComponent("valid/\(name)"))
        let masked = SessionDescription.maskedText(text)
        let original = try SDPParser().parse(text)
        let parsed = try SDPParser().parse(masked)
        #expect(parsed.text == masked)
        // Only the secret lines differ, and they are as long as before.
        // "\r\n" is one Character in Swift.
        func lines(_ text: String) -> [Substring] { text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" } }
        let before = lines(text), after = lines(masked)
        #expect(before.count == after.count)
        for (old, new) in zip(before, after) where old != new {
            #expect(old.hasPrefix("a=ice-pwd:") || old.hasPrefix("a=crypto:") || old.hasPrefix("k="), "\(old)")
            #expect(old.count == new.count || old.hasPrefix("k="))
        }
        for secret in original.media.flatMap({ $0.attributes }).filter({ $0.name == "ice-pwd" }).compactMap(\.value) {
            #expect(!masked.contains(secret))
        }
        if let key = original.media.flatMap({ $0.attributes.values(Crypto.self) }).first?.inlineKey {
            #expect(!masked.contains(key))
            #expect(parsed.media.flatMap { $0.attributes.values(Crypto.self) }.first?.inlineKey?.hasPrefix("REDACTED") == true)
        }
    }
}
