import Foundation
import Media
import Parley
import TestSupport
import Testing

/// RFC 4733 both ways between two of our legs on loopback (one offers, one answers): every digit
/// of 0-9 * # A-D arrives once, in order, as a telephone-event rather than in-band tone.
@Suite(.serialized) struct LoopbackDTMFInteropTests {
    @Test func everyDigitArrivesOnceBothWays() async throws {
        let options = InteropMedia.options(interface: "lo", codec: "opus", tone: nil, record: nil, vanilla: true)
        let caller = try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger)
        let callee = try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)
        let callerEvents = EventRecorder(caller.events)
        let calleeEvents = EventRecorder(callee.events)
        let answer = try await callee.answer(try await caller.makeOffer())
        try await caller.applyAnswer(answer)
        _ = try await callerEvents.next("caller secured") { if case .secured = $0 { true } else { false } }
        _ = try await calleeEvents.next("callee secured") { if case .secured = $0 { true } else { false } }

        let digits = "0123456789*#ABCD"
        try await caller.sendDTMF(digits)
        for digit in digits {
            _ = try await calleeEvents.next("digit \(digit) at the callee") { $0 == .dtmf(digit, inBand: false) }
        }
        try await callee.sendDTMF("73")
        for digit in "73" {
            _ = try await callerEvents.next("digit \(digit) at the caller") { $0 == .dtmf(digit, inBand: false) }
        }
        // Each digit once: no duplicate from the redundant end packets.
        let received = await calleeEvents.all().compactMap { if case .dtmf(let digit, _) = $0 { digit } else { nil } }
        #expect(String(received) == digits)
        #expect(await callee.statistics().audio?.dtmfReceived == digits.count)
        await caller.stop()
        await callee.stop()
    }
}
