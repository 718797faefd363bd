@testable import Signaling
import Testing

/// RFC 3261 §17's four state machines, driven by stepping the time: which messages go out
/// when, what the user hears, and when each transaction ends.
@Suite struct SIPTransactionTests {
    static func request(_ method: String, branch: String = "z9hG4bK-t1", cseq: UInt32 = 1) -> SIPMessage {
        .request(method: method, uri: "sip:bob@example.com", headers: [
            SIPHeader(.via, "SIP/2.0/UDP 192.0.2.10:5060;branch=\(branch);rport"),
            SIPHeader(.maxForwards, "70"),
            SIPHeader(.from, "<sip:alice@example.com>;tag=a1"),
            SIPHeader(.to, "<sip:bob@example.com>"),
            SIPHeader(.callID, "call-1@192.0.2.10"),
            SIPHeader(.cseq, "\(cseq) \(method)"),
            SIPHeader(.contact, "<sip:alice@192.0.2.10:5060>"),
        ])
    }

    static func response(_ status: Int, to request: SIPMessage, tag: String? = "b1") -> SIPMessage {
        .response(to: request, status: status, reason: "Reason", toTag: status == 100 ? nil : tag,
                  headers: status >= 200 && status < 300 ? [SIPHeader(.contact, "<sip:bob@192.0.2.20>")] : [])
    }

    /// Steps the time in 10 ms increments up to `until`, recording when each message went out.
    static func run(_ layer: inout SIPTransactionLayer, from start: Double, until end: Double) -> (sent: [(Double, SIPMessage)], events: [SIPTransactionEvent]) {
        var sent: [(Double, SIPMessage)] = []
        var events: [SIPTransactionEvent] = []
        var now = start
        while now <= end + 1e-9 {
            layer.tick(now: now)
            let output = layer.takeOutput()
            sent += output.messages.map { (now, $0) }
            events += output.events
            now = (now * 100 + 1).rounded() / 100
        }
        return (sent, events)
    }

    static func times(_ sent: [(Double, SIPMessage)]) -> [Double] { sent.map { ($0.0 * 100).rounded() / 100 } }

    @Test func anInviteOverUDPIsRetransmittedAtDoublingIntervalsUntilTimerB() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        let key = try layer.send(invite, now: 0)
        #expect(layer.takeOutput().messages == [invite])
        let (sent, events) = Self.run(&layer, from: 0, until: 40)
        #expect(Self.times(sent) == [0.5, 1.5, 3.5, 7.5, 15.5, 31.5], "Timer A: T1, doubling, without a cap")
        #expect(sent.allSatisfy { $0.1 == invite })
        #expect(events == [.timedOut(key)], "Timer B at 64·T1")
        #expect(layer.count.clients == 0)
    }

    @Test func anInviteOverTCPIsSentOnceAndStillTimesOut() throws {
        var layer = SIPTransactionLayer(reliable: true)
        let key = try layer.send(Self.request("INVITE"), now: 0)
        _ = layer.takeOutput()
        let (sent, events) = Self.run(&layer, from: 0, until: 40)
        #expect(sent.isEmpty)
        #expect(events == [.timedOut(key)])
    }

    @Test func aProvisionalResponseStopsTheInviteRetransmissionsAndTimerB() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        let key = try layer.send(invite, now: 0)
        _ = layer.takeOutput()
        layer.received(Self.response(180, to: invite), now: 0.7)
        let (sent, events) = Self.run(&layer, from: 0.7, until: 100)
        #expect(sent.isEmpty)
        #expect(events.count == 1)
        guard case .response(let answered, let ringing) = events.first else { throw SIPTestFailure("no 180: \(events)") }
        #expect(answered == key && ringing.status == 180)
    }

    @Test func aNon2xxFinalResponseIsAcknowledgedByTheTransactionAndRetransmissionsAreAbsorbed() throws {
        var layer = SIPTransactionLayer(reliable: false)
        var invite = Self.request("INVITE")
        invite.append(SIPHeader(.route, "<sip:proxy.example.com;lr>"))
        let key = try layer.send(invite, now: 0)
        _ = layer.takeOutput()
        let busy = Self.response(486, to: invite)
        layer.received(busy, now: 1)
        let first = layer.takeOutput()
        #expect(first.events == [.response(key, busy)])
        let ack = try #require(first.messages.first)
        #expect(first.messages.count == 1)
        #expect(ack.method == "ACK" && ack.requestURI == "sip:bob@example.com")
        #expect(try ack.cseq() == SIPCSeq(number: 1, method: "ACK"))
        #expect(try ack.vias().map(\.branch) == ["z9hG4bK-t1"], "the INVITE's top Via, branch and all")
        #expect(try ack.to().tag == "b1", "To from the response")
        #expect(try ack.from() == invite.from())
        #expect(ack.header(.route)?.value == "<sip:proxy.example.com;lr>")
        #expect(ack.body.isEmpty && ack.header(.contentLength)?.value == "0")

        layer.received(busy, now: 2)
        #expect(layer.takeOutput() == ([ack], []), "the retransmitted 486 gets the ACK again and is not passed up")
        let (sent, events) = Self.run(&layer, from: 2, until: 33.5)
        #expect(sent.isEmpty && events.isEmpty)
        #expect(layer.count.clients == 0, "Timer D ended the transaction")
        layer.received(busy, now: 34)
        #expect(layer.takeOutput().events == [.strayResponse(busy)])
    }

    @Test func overTCPTheNon2xxIsAcknowledgedAndTheTransactionEndsAtOnce() throws {
        var layer = SIPTransactionLayer(reliable: true)
        let invite = Self.request("INVITE")
        try layer.send(invite, now: 0)
        layer.received(Self.response(603, to: invite), now: 1)
        #expect(layer.takeOutput().messages.map(\.method) == ["INVITE", "ACK"])
        #expect(layer.count.clients == 0, "Timer D is zero on a reliable transport")
    }

    @Test func retransmitted2xxResponsesReachTheUserUntilTimerM() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        let key = try layer.send(invite, now: 0)
        _ = layer.takeOutput()
        let ok = Self.response(200, to: invite)
        layer.received(ok, now: 1)
        #expect(layer.takeOutput() == ([], [.response(key, ok)]), "the user, not the transaction, acknowledges a 2xx")
        layer.received(ok, now: 2)
        #expect(layer.takeOutput().events == [.response(key, ok)], "RFC 6026: a retransmitted 2xx goes up again to be ACKed again")
        _ = Self.run(&layer, from: 2, until: 33.5)
        #expect(layer.count.clients == 0)
    }

    @Test func aNonInviteRequestOverUDPRetransmitsUpToT2UntilTimerF() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let key = try layer.send(Self.request("REGISTER"), now: 0)
        _ = layer.takeOutput()
        let (sent, events) = Self.run(&layer, from: 0, until: 40)
        #expect(Self.times(sent) == [0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5], "Timer E: T1 doubling to T2")
        #expect(events == [.timedOut(key)], "Timer F")
    }

    @Test func aProvisionalResponseToANonInviteRequestKeepsItRetransmittingAtT2() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let register = Self.request("REGISTER")
        try layer.send(register, now: 0)
        _ = layer.takeOutput()
        layer.received(Self.response(100, to: register), now: 0.2)
        _ = layer.takeOutput()
        let (sent, _) = Self.run(&layer, from: 0.2, until: 13)
        #expect(Self.times(sent) == [0.5, 4.5, 8.5, 12.5])
        layer.received(Self.response(200, to: register), now: 13)
        #expect(layer.takeOutput().events.count == 1)
        layer.received(Self.response(200, to: register), now: 13.5)
        #expect(layer.takeOutput() == ([], []), "completed absorbs the retransmitted final response")
        _ = Self.run(&layer, from: 13.5, until: 18.6)
        #expect(layer.count.clients == 0, "Timer K = T4")
    }

    @Test func aServerInviteSendsTryingThenRetransmitsItsFinalResponseUntilTheACK() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        layer.received(invite, now: 0)
        var output = layer.takeOutput()
        let key = try #require({ if case .request(let key, _) = output.events.first { key } else { nil } }())
        #expect(output.messages.map(\.status) == [100], "100 Trying at once")
        #expect(try output.messages[0].to().tag == nil)

        layer.received(invite, now: 0.4)
        #expect(layer.takeOutput().messages.map(\.status) == [100], "a retransmitted INVITE gets the last provisional again")

        let busy = SIPMessage.response(to: invite, status: 486, reason: "Busy Here", toTag: "b9")
        try layer.respond(to: key, with: busy, now: 1)
        #expect(layer.takeOutput().messages == [busy])
        let (sent, events) = Self.run(&layer, from: 1, until: 16)
        #expect(Self.times(sent) == [1.5, 2.5, 4.5, 8.5, 12.5], "Timer G: T1 doubling to T2")
        #expect(events.isEmpty)
        layer.received(invite, now: 16.1)
        #expect(layer.takeOutput().messages == [busy])

        layer.received(SIPMessage.ack(for: invite, finalResponse: busy), now: 16.2)
        output = layer.takeOutput()
        #expect(output.messages.isEmpty && output.events.isEmpty, "the ACK of a non-2xx stays in the transaction")
        let (after, _) = Self.run(&layer, from: 16.2, until: 22)
        #expect(after.isEmpty, "confirmed: no more retransmissions")
        #expect(layer.count.servers == 0, "Timer I = T4")
    }

    @Test func aServerInviteWhoseFinalResponseIsNeverAcknowledgedTimesOut() throws {
        var layer = SIPTransactionLayer(reliable: true)
        let invite = Self.request("INVITE")
        layer.received(invite, now: 0)
        let key = SIPTransactionKey(branch: "z9hG4bK-t1", method: "INVITE", sentBy: "192.0.2.10:5060")
        #expect(layer.takeOutput().events == [.request(key, invite)])
        try layer.respond(to: key, with: .response(to: invite, status: 480, reason: "Temporarily Unavailable", toTag: "b9"), now: 0)
        _ = layer.takeOutput()
        let (sent, events) = Self.run(&layer, from: 0, until: 33)
        #expect(sent.isEmpty, "no Timer G on a reliable transport")
        #expect(events == [.timedOut(key)], "Timer H")
    }

    @Test func afterA2xxTheServerInvitePassesACKsUpAndAbsorbsRetransmissions() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        layer.received(invite, now: 0)
        _ = layer.takeOutput()
        let key = SIPTransactionKey(branch: "z9hG4bK-t1", method: "INVITE", sentBy: "192.0.2.10:5060")
        let ok = SIPMessage.response(to: invite, status: 200, reason: "OK", toTag: "b9")
        try layer.respond(to: key, with: ok, now: 1)
        #expect(layer.takeOutput().messages == [ok])
        layer.received(invite, now: 1.2)
        #expect(layer.takeOutput() == ([], []), "RFC 6026 Accepted: the INVITE retransmission is absorbed")
        var ack = Self.request("ACK", branch: "z9hG4bK-ack")
        ack.set(.to, "<sip:bob@example.com>;tag=b9")
        layer.received(ack, now: 1.3)
        #expect(layer.takeOutput().events == [.ackForSuccess(ack)])
        #expect(throws: SIPTransactionError.alreadyAnswered(key)) {
            try layer.respond(to: key, with: .response(to: invite, status: 180, reason: "Ringing", toTag: "b9"), now: 1.4)
        }
        _ = Self.run(&layer, from: 1.4, until: 33.5)
        #expect(layer.count.servers == 0, "Timer L")
    }

    @Test func aServerNonInviteAnswersRetransmissionsFromCompletedUntilTimerJ() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let options = Self.request("OPTIONS")
        layer.received(options, now: 0)
        #expect(layer.takeOutput().messages.isEmpty, "no automatic 100 for a non-INVITE")
        let key = SIPTransactionKey(branch: "z9hG4bK-t1", method: "OPTIONS", sentBy: "192.0.2.10:5060")
        layer.received(options, now: 0.3)
        #expect(layer.takeOutput() == ([], []), "Trying absorbs a retransmission")
        let ok = SIPMessage.response(to: options, status: 200, reason: "OK", toTag: "b9")
        try layer.respond(to: key, with: ok, now: 0.5)
        _ = layer.takeOutput()
        layer.received(options, now: 1)
        #expect(layer.takeOutput().messages == [ok])
        _ = Self.run(&layer, from: 1, until: 32.4)
        #expect(layer.count.servers == 1)
        _ = Self.run(&layer, from: 32.5, until: 32.6)
        #expect(layer.count.servers == 0, "Timer J = 64·T1")

        var tcp = SIPTransactionLayer(reliable: true)
        tcp.received(options, now: 0)
        try tcp.respond(to: key, with: ok, now: 0)
        #expect(tcp.count.servers == 0, "Timer J is zero on a reliable transport")
    }

    @Test func transactionsMatchByBranchAndMethod() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        let inviteKey = try layer.send(invite, now: 0)
        let cancelKey = try layer.send(SIPMessage.cancel(of: invite), now: 0.1)
        #expect(inviteKey != cancelKey && inviteKey.branch == cancelKey.branch)
        #expect(layer.count.clients == 2)
        _ = layer.takeOutput()

        let otherBranch = Self.response(200, to: Self.request("INVITE", branch: "z9hG4bK-other"))
        layer.received(otherBranch, now: 0.2)
        #expect(layer.takeOutput().events == [.strayResponse(otherBranch)])
        // Our branch but another call's Call-ID: not ours either.
        var otherCall = Self.response(200, to: invite)
        otherCall.set(.callID, "another-call")
        layer.received(otherCall, now: 0.2)
        #expect(layer.takeOutput().events == [.strayResponse(otherCall)])

        let cancelled = Self.response(200, to: SIPMessage.cancel(of: invite))
        layer.received(cancelled, now: 0.3)
        #expect(layer.takeOutput().events == [.response(cancelKey, cancelled)])
        #expect(throws: SIPTransactionError.duplicate(inviteKey)) { try layer.send(invite, now: 0.4) }
    }

    @Test func aReceivedCancelFindsTheInviteItCancels() throws {
        var layer = SIPTransactionLayer(reliable: false)
        let invite = Self.request("INVITE")
        layer.received(invite, now: 0)
        layer.received(SIPMessage.cancel(of: invite), now: 0.5)
        let events = layer.takeOutput().events
        guard case .request(let cancelKey, let cancel) = events.last else { throw SIPTestFailure("\(events)") }
        #expect(cancel.method == "CANCEL")
        #expect(layer.invite(cancelledBy: cancelKey) == SIPTransactionKey(branch: "z9hG4bK-t1", method: "INVITE", sentBy: "192.0.2.10:5060"))
    }

    @Test func malformedMessagesAreReportedAndDropped() throws {
        var layer = SIPTransactionLayer(reliable: false)
        layer.received(Array("INVITE sip:bob@example.com SIP/2.0\r\nCSeq: 1 INVITE\r\n\r\n".utf8), now: 0)
        layer.received(Array("garbage".utf8), now: 0)
        let output = layer.takeOutput()
        #expect(output.messages.isEmpty && layer.count == (0, 0))
        #expect(output.events.count == 2)
        #expect(output.events.allSatisfy { if case .malformed = $0 { true } else { false } })
        #expect(throws: SIPTransactionError.self) {
            var noBranch = Self.request("OPTIONS")
            noBranch.remove(.via)
            try layer.send(noBranch, now: 0)
        }
    }
}

struct SIPTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
