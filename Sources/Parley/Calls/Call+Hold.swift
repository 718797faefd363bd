/// Hold as the Telnyx SDKs do it: Verto's `modify` `hold` alone (docs/calls.md, "Hold"). The
/// server that carries the media plays its own music on hold (FreeSWITCH, Telnyx); one that only
/// relays it (`parley switch`) relays the `modify` to the far end, which stops sending as it
/// does for any hold notice. No SDK re-offers the media with a=sendonly toward a server, so
/// neither do we (docs/verto-protocol.md, "What Parley sends").
extension Call {
    /// The far end's re-offer says it holds us (a=sendonly or a=inactive) or no longer does:
    /// the call follows as it does Verto's `hold` notice, whichever of the two comes first.
    func followHold(wasHeld: Bool) async {
        guard let leg else { return }
        let held = await leg.farEndHolds
        guard held != wasHeld else { return }
        await apply(held ? .remoteHold : .remoteUnhold)
    }
}
