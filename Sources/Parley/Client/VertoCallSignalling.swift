import Signaling

/// The Verto/Telnyx dialect of `CallSignalling`. The client owns the one socket; it routes each
/// call's events here to be put in the call's words (`callEvent(_:)`).
struct VertoCallSignalling: CallSignalling {
    let client: VertoClient

    func open(callID: String) async throws(ParleyError) {}

    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String? {
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
        return nil
    }

    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        do {
            _ = try await client.answer(callID: callID, sdp: sdp, trickle: trickle)
        } catch {
            throw ParleyError(error)
        }
    }

    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        do {
            _ = try await client.perform { session, now throws(SignalingError) in try session.earlyMedia(callID: callID, sdp: sdp, trickle: trickle, now: now) }
        } catch {
            throw ParleyError(error)
        }
    }

    /// iOS's optional ringing_ack, only with `VoiceClientConfiguration.ringingFeedback`.
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

    func transfer(callID: String, destination: String) async throws(ParleyError) {
        do {
            try await client.transfer(callID: callID, destination: destination)
        } catch {
            throw ParleyError(error)
        }
    }

    /// One `info` per digit, each after the last was taken, as the SDKs send a key press
    /// (docs/verto-protocol.md §5.9): a server reading `dtmf` as one key gets every digit.
    func sendDTMF(callID: String, digits: String) async throws(ParleyError) {
        for digit in digits {
            do {
                _ = try await client.info(callID: callID, dtmf: String(digit))
            } catch {
                throw ParleyError(error)
            }
        }
    }

    /// Sent without waiting for the server's result, which says nothing a call acts on. Awaited,
    /// each candidate cost a round trip through the server before the next went out, and a dial
    /// or answer returned only after the last (docs/performance.md, "Call setup"). One socket
    /// and one actor keep them in order.
    func candidate(callID: String, line: String) async {
        try? await client.send { session, now throws(SignalingError) in
            try session.candidate(VertoCandidate(callID: callID, candidate: line, sdpMid: "0", sdpMLineIndex: 0), now: now)
        }
    }

    func endOfCandidates(callID: String) async {
        try? await client.send { session, now throws(SignalingError) in try session.endOfCandidates(callID: callID, now: now) }
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

    func waitUntilReady(within timeout: Duration) async -> Bool {
        await client.waitUntilReady(within: timeout)
    }

    func close() async {}

    /// The call's id and the event in the call's words, for the events that belong to one call.
    func callEvent(_ event: VertoEvent) -> (callID: String, event: CallSignallingEvent)? {
        switch event {
        case .ringing(let progress): (progress.callID, .ringing)
        case .earlyMedia(let progress): (progress.callID, .earlyMedia(sdp: progress.sdp))
        case .answered(let progress): (progress.callID, .answered(sdp: progress.sdp, answererTrickles: progress.params["trickle"]?.boolValue == true))
        case .remoteHangup(let callID, let cause):
            (callID, .remoteHangup(TerminationReason(cause)))
        case .remoteCandidate(let candidate): (candidate.callID, .remoteCandidate(candidate.candidate))
        case .remoteEndOfCandidates(let callID): (callID, .remoteEndOfCandidates)
        case .modify(let callID, "hold", _): (callID, .remoteHold)
        case .modify(let callID, "unhold", _): (callID, .remoteUnhold)
        case .modify(let callID, "transfer", let params): (callID, .transferred(destination: params["destination"]?.stringValue ?? ""))
        case .info(let callID?, let params): (callID, .dtmf(params["dtmf"]?.stringValue ?? ""))
        case .mediaUpdateRequest(let requestID, let callID, let offer, let reattach):
            (callID, .mediaUpdate(offer: offer, reattach: reattach, reply: mediaUpdateReply(requestID: requestID, callID: callID)))
        default: nil
        }
    }

    /// Completes a `verto.modify` renegotiation with our answer or a JSON-RPC error.
    func mediaUpdateReply(requestID: JSONRPCID, callID: String) -> MediaUpdateReply {
        let client = client
        return MediaUpdateReply { result in
            let answer: Result<String, JSONRPCErrorObject> = result.mapError { refusal in
                switch refusal {
                case .notAnswered: JSONRPCErrorObject(code: -32002, message: "Cannot update a call that has not been answered.")
                case .noSuchCall: JSONRPCErrorObject(code: -32002, message: "CALL DOES NOT EXIST")
                case .media(let message): JSONRPCErrorObject(code: -32002, message: "MEDIA ERROR: \(message)")
                }
            }
            await client.answerMediaUpdate(requestID: requestID, callID: callID, answer: answer)
        }
    }
}
