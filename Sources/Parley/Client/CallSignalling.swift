import Signaling

/// What a call asks of its signalling dialect. Verto speaks it today; the call never knows which.
protocol CallSignalling: Sendable {
    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError)
    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError)
    func ringing(callID: String) async
    func hangup(callID: String, cause: HangupCause) async
    func hold(callID: String, _ held: Bool) async throws(ParleyError)
    func sendDTMF(callID: String, digits: String) async throws(ParleyError)
    func candidate(callID: String, line: String) async
    func endOfCandidates(callID: String) async
    /// Our ICE-restart offer; returns the far end's answer.
    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String
    /// Our answer to the server's re-offer of a call after we logged in again.
    func reattach(callID: String, sdp: String) async throws(ParleyError)
    /// Waits until call requests may be made again after a re-login; false after `seconds`.
    func waitUntilReady(within seconds: Double) async -> Bool
    /// Completes the far end's renegotiation request.
    func answerMediaUpdate(requestID: JSONRPCID, callID: String, answer: Result<String, JSONRPCErrorObject>) async
}

/// The Verto/Telnyx dialect of `CallSignalling`.
struct VertoCallSignalling: CallSignalling {
    let client: VertoClient

    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) {
        var dial = VertoDialParameters(callID: callID, destination: destination)
        dial.callerName = options.callerName
        dial.callerNumber = options.callerNumber
        dial.customHeaders = options.headers
        dial.clientState = options.clientState
        dial.trickle = trickle
        do {
            _ = try await client.invite(dial, sdp: sdp)
        } catch {
            throw ParleyError(error)
        }
    }

    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        do {
            _ = try await client.answer(callID: callID, sdp: sdp, trickle: trickle)
        } catch {
            throw ParleyError(error)
        }
    }

    func ringing(callID: String) async {
        _ = try? await client.perform { session, now throws(SignalingError) in try session.ringingAck(callID: callID, now: now) }
    }

    func hangup(callID: String, cause: HangupCause) async {
        _ = try? await client.bye(callID: callID, cause: cause)
    }

    func hold(callID: String, _ held: Bool) async throws(ParleyError) {
        do {
            _ = try await client.modify(callID: callID, action: held ? .hold : .unhold)
        } catch {
            throw ParleyError(error)
        }
    }

    func sendDTMF(callID: String, digits: String) async throws(ParleyError) {
        do {
            _ = try await client.info(callID: callID, dtmf: digits)
        } catch {
            throw ParleyError(error)
        }
    }

    func candidate(callID: String, line: String) async {
        _ = try? await client.candidate(VertoCandidate(callID: callID, candidate: line, sdpMid: "0", sdpMLineIndex: 0))
    }

    func endOfCandidates(callID: String) async {
        _ = try? await client.endOfCandidates(callID: callID)
    }

    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String {
        do {
            return try await client.updateMedia(callID: callID, offer: offer)
        } catch {
            throw ParleyError(error)
        }
    }

    func reattach(callID: String, sdp: String) async throws(ParleyError) {
        do {
            _ = try await client.answer(callID: callID, sdp: sdp, attach: true)
        } catch {
            throw ParleyError(error)
        }
    }

    func waitUntilReady(within seconds: Double) async -> Bool {
        await client.waitUntilReady(within: seconds)
    }

    func answerMediaUpdate(requestID: JSONRPCID, callID: String, answer: Result<String, JSONRPCErrorObject>) async {
        await client.answerMediaUpdate(requestID: requestID, callID: callID, answer: answer)
    }
}
