/// Three-way calls: two of our calls merged in the process, not on a media server
/// (docs/calls.md, "Three-way calls"; docs/architecture.md, "Merged calls").
extension Call {
    /// Merges this call with `other`: each far end hears the other as well as us, and what we
    /// play or record of each call carries both far ends. Both calls must be active, with media,
    /// at the same audio rate, and neither merged already.
    public func merge(with other: Call) async throws(ParleyError) {
        guard other !== self else { throw ParleyError(kind: .callState, message: "a call cannot be merged with itself") }
        let mine = try await tapsForMerge()
        let theirs = try await other.tapsForMerge()
        let audio = try AudioMerge(mine, theirs)
        try await other.joinMerge(partner: self, audio: audio)
        // This call may have changed while we awaited the other.
        guard merged == nil, machine.state == .active else {
            await other.partnerLeft(id)
            throw ParleyError(kind: .callState, message: "call \(id) changed while it was being merged; try again")
        }
        merged = (other, audio)
        audio.connect()
        eventSink.yield(.merged(with: other.id))
        let shards = (mediaShard.map(String.init) ?? "-", await other.mediaShard.map(String.init) ?? "-")
        logger.info("call \(id) merged with \(other.id) (media shards \(shards.0) and \(shards.1))")
    }

    /// Splits a merged call from its partner; each goes on as a two-party call.
    public func unmerge() async throws(ParleyError) {
        guard let merged else { throw ParleyError(kind: .callState, message: "the call is not merged with another") }
        merged.audio.disconnect()
        self.merged = nil
        eventSink.yield(.unmerged(from: merged.partner.id))
        await merged.partner.partnerLeft(id)
    }

    /// The index of the shard the call's media runs on, while it has media.
    var mediaShard: Int? { leg?.shard.index }

    /// The call's audio taps, when it can be merged now.
    func tapsForMerge() async throws(ParleyError) -> AudioTaps {
        guard merged == nil else { throw ParleyError(kind: .callState, message: "call \(id) is already merged with another call") }
        guard machine.state == .active else {
            throw ParleyError(kind: .callState, message: "cannot merge call \(id) while it is \(machine.state); both calls must be active")
        }
        guard let taps = await leg?.audioTaps() else { throw ParleyError(kind: .callState, message: "call \(id) has no media to merge yet") }
        return taps
    }

    private func joinMerge(partner: Call, audio: AudioMerge) async throws(ParleyError) {
        _ = try await tapsForMerge()
        guard merged == nil else { throw ParleyError(kind: .callState, message: "call \(id) is already merged with another call") }
        merged = (partner, audio)
        eventSink.yield(.merged(with: partner.id))
    }

    /// The partner unmerged or ended: the crossed audio is already undone.
    func partnerLeft(_ partnerID: String) {
        guard merged?.partner.id == partnerID else { return }
        merged = nil
        eventSink.yield(.unmerged(from: partnerID))
    }

    /// The call ends: its partner goes on alone.
    func leaveMerge() async {
        guard let merged else { return }
        merged.audio.disconnect()
        self.merged = nil
        await merged.partner.partnerLeft(id)
    }
}
