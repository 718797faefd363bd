/// The first audible frame a call played: when, and how many packets had arrived by then.
public struct FirstAudibleSound: Sendable, Equatable {
    public let at: ContinuousClock.Instant
    public let packetsReceived: Int
}

/// When the far end's media first arrived and first sounded, raised once by the media session
/// where it happened (docs/performance.md, "Call setup"), and the tasks awaiting either. Whoever
/// times setup awaits these instead of polling statistics: a poll per call every few
/// milliseconds delays every other task on the cooperative pool under load.
struct FirstMedia {
    private(set) var packet: ContinuousClock.Instant?
    private(set) var audible: FirstAudibleSound?
    private(set) var ended = false
    var packetWaiters: [CheckedContinuation<ContinuousClock.Instant?, Never>] = []
    var audibleWaiters: [CheckedContinuation<FirstAudibleSound?, Never>] = []

    /// The first report counts; a later media leg's (after a recovery) does not.
    mutating func packetArrived(at instant: ContinuousClock.Instant) {
        guard packet == nil, !ended else { return }
        packet = instant
        for waiter in packetWaiters { waiter.resume(returning: instant) }
        packetWaiters = []
    }

    mutating func audiblePlayed(_ sound: FirstAudibleSound) {
        guard audible == nil, !ended else { return }
        audible = sound
        for waiter in audibleWaiters { waiter.resume(returning: sound) }
        audibleWaiters = []
    }

    /// Whoever still waits learns there will be nothing.
    mutating func callEnded() {
        ended = true
        for waiter in packetWaiters { waiter.resume(returning: nil) }
        for waiter in audibleWaiters { waiter.resume(returning: nil) }
        packetWaiters = []
        audibleWaiters = []
    }
}

extension Call {
    /// When the far end's first RTP packet arrived (taken on arrival, not when this returns);
    /// waits for it, and returns nil if the call ends without one.
    public func firstPacketArrival() async -> ContinuousClock.Instant? {
        if let packet = firstMedia.packet { return packet }
        if firstMedia.ended { return nil }
        return await withCheckedContinuation { firstMedia.packetWaiters.append($0) }
    }

    /// The first frame the call played with a level above zero; waits for it, and returns nil
    /// if the call ends without one. Only a call dialled or answered with
    /// `MediaOptions.watchesFirstAudible` notes it: any other waits until it ends.
    public func firstAudibleSound() async -> FirstAudibleSound? {
        if let audible = firstMedia.audible { return audible }
        if firstMedia.ended { return nil }
        return await withCheckedContinuation { firstMedia.audibleWaiters.append($0) }
    }
}
