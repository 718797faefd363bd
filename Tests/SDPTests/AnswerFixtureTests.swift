import Foundation
import SDP
import Testing

/// Each folder of `fixtures/sdp/answer/` is one case: `command` (the offer fixture, then
/// `parley sdp answer` flags, one per line) and either `expected.sdp` or `expected.error`.
/// Credentials, fingerprint and keys are fixed here so the answer is reproducible.
@Suite struct AnswerFixtureTests {
    static let cases = Fixtures.folders(in: "answer").map(\.lastPathComponent)
    static let fingerprint = Fingerprint(
        hashFunction: "sha-256",
        value: "3A:1F:6C:0B:9E:55:D2:47:A8:10:FE:33:C4:7D:29:B6:85:E0:1A:5F:93:CC:62:0D:B7:48:E9:21:76:AF:04:D8")
    static let sdesKey = "inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"

    @Test(arguments: cases)
    func answerMatches(name: String) throws {
        let folder = Fixtures.root.appendingPathComponent("answer/\(name)")
        let lines = try Fixtures.text(folder.appendingPathComponent("command")).split(separator: "\n").map(String.init)
        let offer = try SDPParser().parse(bytes: Fixtures.bytes(Fixtures.root.appendingPathComponent(lines[0])))
        let options = try Self.options(from: Array(lines.dropFirst()), offer: offer)
        let expectedError = folder.appendingPathComponent("expected.error")
        if ProcessInfo.processInfo.environment["PARLEY_RECORD_ANSWERS"] == "1" {
            // Records new cases for review; a recorded file is checked by every later run.
            do {
                let text = try SessionDescription.answer(to: offer, options: options).description.text
                try Data(text.utf8).write(to: folder.appendingPathComponent("expected.sdp"))
            } catch let error as NegotiationError {
                try Data((error.description + "\n").utf8).write(to: expectedError)
            }
            return
        }
        if FileManager.default.fileExists(atPath: expectedError.path) {
            let error = try #require(throws: NegotiationError.self) { try SessionDescription.answer(to: offer, options: options) }
            #expect(error.description + "\n" == (try Fixtures.text(expectedError)))
            return
        }
        let answer = try SessionDescription.answer(to: offer, options: options)
        let difference = firstDifference(SDPSerializer.bytes(answer.description), try Fixtures.bytes(folder.appendingPathComponent("expected.sdp")))
        #expect(difference == nil, "answer differs from expected.sdp at \(difference ?? "")")
        // The answer parses, keeps one m= line per offered one, in order, with the same kinds.
        let reparsed = try SDPParser().parse(answer.description.text)
        #expect(reparsed.media.map(\.kind) == offer.media.map(\.kind))
        #expect(reparsed.media.filter { !$0.isRejected }.count == 1)
    }

    static let sdesSuites = ["AES_256_CM_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_80"]

    /// The answer options `parley sdp answer` uses (LocalAnswer, in the Parley module), with
    /// the fresh material fixed: an offer without ICE gets no ICE lines, SDES keys and RTP at
    /// the placeholder address, as a SIP call without ICE answers it.
    static func options(from flags: [String], offer: SessionDescription) throws -> AnswerOptions {
        var options = AnswerOptions(
            ice: ICEDescription(ufrag: "PrlyTestUfrag001", password: "PrlyTestPassword0123456789abcdef"),
            security: .dtls(fingerprint), sessionId: "4242")
        if offer.isWithoutICE {
            options.ice = ICEDescription(ufrag: "", password: "")
            options.security = .sdes(keys: Dictionary(uniqueKeysWithValues: sdesSuites.map { ($0, sdesKey) }), suites: sdesSuites)
            options.plainTransport = PlainTransport(address: "192.0.2.1", port: 40000)
        }
        var index = 0
        while index < flags.count {
            switch flags[index] {
            case "--order":
                index += 1
                options.codecOrder = try #require(CodecOrder(rawValue: flags[index]))
            case "--direction":
                index += 1
                options.direction = try #require(Direction(rawValue: flags[index]))
            case "--sdes":
                options.security = .sdes(keys: Dictionary(uniqueKeysWithValues: sdesSuites.map { ($0, sdesKey) }), suites: sdesSuites)
            case "--allow-unencrypted":
                options.allowUnencrypted = true
            default:
                Issue.record("unknown flag \(flags[index])")
            }
            index += 1
        }
        return options
    }
}
