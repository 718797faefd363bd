/// Hold in the SDP as well as in the signalling (docs/calls.md, "Hold"). Verto's `hold` tells the
/// server, which plays its own music on hold when it carries the media (FreeSWITCH); a server
/// that only relays the media (`parley switch`) needs the far end told in the SDP. So after the
/// server took the hold, we re-offer the running media with a=sendonly (a=sendrecv on unhold)
/// through the `updateMedia` an ICE restart uses: no new ICE credentials, no new DTLS.
extension Call {
    /// Re-offers until the far end has the direction our hold state asks for (a hold and an
    /// unhold in quick succession each go out, in order). The hold stands without the re-offer:
    /// a server that refuses it (one that knows no `updateMedia`) leaves a warning, and the hold
    /// is the server's alone.
    func reofferDirection() async {
        guard isPastAnswer, let leg, !reofferingHold else { return }
        guard !renegotiating else {
            // An ICE restart under way: our next offers and answers carry the wish.
            _ = try? await leg.holdOffer(holding: holdingCall)
            return
        }
        renegotiating = true
        reofferingHold = true
        defer {
            renegotiating = false
            reofferingHold = false
        }
        var offered: Bool?
        for _ in 0..<4 where isPastAnswer && holdingCall != offered {
            let holding = holdingCall
            offered = holding
            do {
                let offer = try await leg.holdOffer(holding: holding)
                try ensureLive(sending: "hold re-offer")
                let answer = try await signalling.updateMedia(callID: id, offer: offer)
                try await leg.applyHoldAnswer(answer)
                logger.info("call \(id): \(holding ? "hold" : "unhold") re-offered in the SDP (a=\(holding ? "sendonly" : "sendrecv"))")
            } catch {
                logger.warning("call \(id): the far end did not take the \(holding ? "hold" : "unhold") re-offer: \(error); the hold is the server's only")
                return
            }
        }
    }

    /// We hold the call (the far end may hold it too).
    private var holdingCall: Bool { machine.state == .held || machine.state == .doubleHeld }

    /// The far end's re-offer says it holds us (a=sendonly or a=inactive) or no longer does:
    /// the call follows as it does Verto's `hold` notice, whichever of the two comes first.
    func followHold(wasHeld: Bool) async {
        guard let leg else { return }
        let held = await leg.farEndHolds
        guard held != wasHeld else { return }
        await apply(held ? .remoteHold : .remoteUnhold)
    }
}
