import Foundation
import Media
import Parley
import Switch
import TestSupport
import Testing

/// A three-way call in the library: alice calls bob and carol through the embedded switch on
/// loopback (real ICE, DTLS-SRTP, Opus) and merges the two calls. Each far end's recording must
/// hold the two other parties' tones at once; after `unmerge` each call is two-party again.
@Suite(.serialized) struct ThreeWayThroughSwitchTests {
    /// 100 ms chunks of `path` in which each of `tones` holds at least 8% of the energy (two equal
    /// tones hold about 25% each; an absent one well under 1%).
    static func chunksHolding(_ tones: [Double], in path: String) throws -> Int {
        let samples = try Recording.samples(path)
        let chunk = 4800
        var holding = 0
        for start in stride(from: 0, to: samples.count - chunk, by: chunk) {
            let window = Array(samples[start..<start + chunk])
            let energy = window.reduce(0.0) { $0 + Double($1) * Double($1) }
            guard energy / Double(chunk) > 300 * 300 else { continue }
            let all = window.withUnsafeBufferPointer { buffer in
                tones.allSatisfy { Goertzel.power(of: $0, in: buffer, sampleRate: 48000) > energy * Double(chunk) * 0.08 }
            }
            if all { holding += 1 }
        }
        return holding
    }

    @Test func eachFarEndHearsBothOtherPartiesWhileMerged() async throws {
        let embedded = try await TransferThroughSwitchTests.startSwitch()
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (bobRecording, carolRecording) = (directory.appendingPathComponent("bob.wav").path, directory.appendingPathComponent("carol.wav").path)
        let parties = try await TransferThroughSwitchTests.parties(at: embedded.url, bob: ("tone:880", bobRecording), carolRecord: carolRecording)
        let (alice, bobOffers, carolOffers) = (parties.alice, parties.bobOffers, parties.carolOffers)

        let toBob = try await alice.dial("bob")
        let bobCall = try #require(try await bobOffers.next("bob's call", where: TransferThroughSwitchTests.isIncoming).incomingCall)
        try await bobCall.answer()
        let toCarol = try await alice.dial("carol")
        let carolCall = try #require(try await carolOffers.next("carol's call", where: TransferThroughSwitchTests.isIncoming).incomingCall)
        try await carolCall.answer()
        try await TransferThroughSwitchTests.hearing(toBob, "alice hearing bob")
        try await TransferThroughSwitchTests.hearing(toCarol, "alice hearing carol")
        let events = EventRecorder(toCarol.events)

        try await toBob.merge(with: toCarol)
        _ = try await events.next("carol's call merged") { $0 == .merged(with: toBob.id) }
        await #expect(throws: ParleyError.self) { try await toCarol.merge(with: toBob) }
        let mergedAt = await carolCall.call.statistics().audio?.packetsReceived ?? 0
        try await waitUntil("two seconds merged") { (await carolCall.call.statistics().audio?.packetsReceived ?? 0) >= mergedAt + 100 }
        try await toCarol.unmerge()
        _ = try await events.next("carol's call split") { $0 == .unmerged(from: toBob.id) }
        #expect(await toBob.state == .active)
        await toBob.hangup()
        await toCarol.hangup()
        await parties.disconnect()
        await embedded.stop()

        #expect(try Self.chunksHolding([440, 660], in: bobRecording) >= 10, "bob did not hear alice and carol at once")
        #expect(try Self.chunksHolding([440, 880], in: carolRecording) >= 10, "carol did not hear alice and bob at once")
        #expect(try Self.chunksHolding([440, 880], in: bobRecording) < 3, "bob heard himself")
    }
}
