import Foundation
import Signaling

/// How a transfer or forward goes, as `CallEvent.transfer` reports it.
public enum TransferProgress: Sendable, Equatable {
    /// We asked the server to move the other party to `destination`.
    case requested(destination: String)
    /// The server moved it; our part of the call ends next (`session-completed` or `call-forwarded`).
    case completed(destination: String)
    /// The server refused; the call goes on as it was.
    case failed(destination: String, reason: String)
    /// The other party sent us on to `destination`: the call now rings there, on new media.
    case transferred(destination: String)
    /// A redirect (SIP 3xx, `response`) sent our call on to `destination`: a new INVITE goes there.
    case redirected(destination: String, response: String)
    /// A redirect we did not follow (not asked to, a loop, too many): the call ends with it.
    case redirectNotFollowed(destination: String, reason: String)
}

/// Blind transfer, forward and the endings a user can cause (docs/calls.md, "Transfer and
/// forward"; Kandy's end reasons 9900-9908).
extension Call {
    /// Blind transfer of an answered (or held) call: the server moves the far end to
    /// `destination` and we leave the call with local status `session-completed`. Janus cannot
    /// transfer: a `call-state` error. A refusal leaves the call as it was.
    public func transfer(to destination: String) async throws(ParleyError) {
        try await handOn(.transfer, to: destination, status: .sessionCompleted)
    }

    /// Forwards a call offered to us, before answering: the caller now rings at `destination`
    /// and our part ends `call-forwarded`.
    func forward(to destination: String) async throws(ParleyError) {
        try await handOn(.forward, to: destination, status: .callForwarded)
    }

    /// A destination as a user typed it: one word of printable characters (a login, a number, a
    /// SIP URI), checked before anything goes on the wire.
    package static func checkedDestination(_ text: String) throws(ParleyError) -> String {
        let destination = text.trimmingCharacters(in: .whitespaces)
        guard !destination.isEmpty else { throw ParleyError(kind: .configuration, message: "the transfer destination is empty") }
        guard destination.count <= 256, destination.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw ParleyError(kind: .configuration, message: "\"\(destination.prefix(40))\" is not a destination (one word, no spaces or control characters, at most 256)")
        }
        return destination
    }

    private func handOn(_ operation: CallOperation, to text: String, status: TerminationReason.LocalStatus) async throws(ParleyError) {
        let destination = try Self.checkedDestination(text)
        try begin(operation)
        eventSink.yield(.transfer(.requested(destination: destination)))
        do {
            try ensureLive(sending: operation.rawValue)
            try await signalling.transfer(callID: id, destination: destination)
        } catch {
            machine.finish(operation, succeeded: false)
            if !machine.state.isDone { eventSink.yield(.transfer(.failed(destination: destination, reason: error.message))) }
            throw error
        }
        machine.finish(operation, succeeded: true)
        eventSink.yield(.transfer(.completed(destination: destination)))
        // The server has let go of our side: no bye.
        await end(TerminationReason(localStatus: status), failure: nil, notifyServer: false)
    }

    /// The other party transferred or forwarded us: the old media stops and we call
    /// `destination` under the same call id, on a new media leg (a new far end has its own ICE
    /// and DTLS). The call keeps its state; its end is the new far end's.
    func followTransfer(to destination: String) async {
        guard let destination = try? Self.checkedDestination(destination) else {
            eventSink.yield(.error(ParleyError(kind: .protocolViolation, message: "the server transferred the call without a usable destination")))
            return
        }
        await changeFarEnd(to: destination, "transferred to \(destination)")
        do {
            let leg = try startLeg(role: .controlling)
            let offer = try await leg.makeOffer()
            try ensureLive(sending: "invite")
            _ = try await signalling.invite(callID: id, destination: destination, options: DialOptions(), sdp: offer, trickle: trickle)
        } catch {
            await fail(error)
        }
    }

    /// A new far end (a transfer followed, a replacement taken): the change is reported and the old
    /// media leg goes with what it showed of the path; the next leg is the caller's to start.
    func changeFarEnd(to party: String, _ what: String) async {
        logger.info("call \(id): \(what)")
        eventSink.yield(.transfer(.transferred(destination: party)))
        timers.stopLegPump()
        await leg?.stop()
        leg = nil
        mediaPath = MediaPath()
    }

    /// The server's bye, with what the client knows added: an incoming call still ringing here
    /// that the server clears because another device took it was answered elsewhere.
    func endingReason(forRemote reason: TerminationReason) -> TerminationReason {
        guard direction == .incoming, machine.state == .ringing, let cause = reason.cause, Self.answeredElsewhereCauses.contains(cause) else { return reason }
        var reason = reason
        reason.localStatus = .answeredElsewhere
        return reason
    }

    /// Q.850 / FreeSWITCH causes of a ringing call that another device answered or picked up.
    static let answeredElsewhereCauses: Set<String> = ["LOSE_RACE", "PICKED_OFF", "ANSWERED_ELSEWHERE"]

    /// The client logs out with the call up: it is hung up with local status `ended-by-unregister`.
    func endByUnregister() async {
        guard !machine.state.isDone else { return }
        machine.handle(.ended(TerminationReason(.normalClearing, localStatus: .endedByUnregister)))
        await signalling.hangup(callID: id, cause: .normalClearing)
        await finish()
    }
}
