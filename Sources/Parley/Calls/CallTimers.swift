/// The tasks a call starts for itself and cancels when it ends: the ring timeout of a call we
/// dial (Call+RingTimeout.swift), the media timeout of an answered call (Call+Media.swift), and
/// the pump of its media leg's events.
///
/// A value the call's actor keeps.
struct CallTimers {
    /// Ends the call `no-answer` if nobody answered by then.
    private(set) var ring: Task<Void, Never>?
    /// Ends it `no-media` if media has not connected by then.
    private(set) var media: Task<Void, Never>?
    /// The media leg's events into the call, for as long as that leg lives.
    private var legPump: Task<Void, Never>?

    /// The first ring timer stays; a later one is cancelled.
    mutating func startRing(_ task: Task<Void, Never>) {
        guard ring == nil else { return task.cancel() }
        ring = task
    }

    /// The first media timer stays; a later one is cancelled.
    mutating func startMedia(_ task: Task<Void, Never>) {
        guard media == nil else { return task.cancel() }
        media = task
    }

    /// Answered: nobody rings any more.
    func answered() {
        ring?.cancel()
    }

    /// A new leg's pump; the old leg's stops.
    mutating func pumpLeg(_ task: Task<Void, Never>) {
        legPump?.cancel()
        legPump = task
    }

    /// The leg goes (a transfer replaces it, or the call ends): its events stop.
    func stopLegPump() {
        legPump?.cancel()
    }

    /// The call ended: every timer with it.
    func cancelTimers() {
        ring?.cancel()
        media?.cancel()
    }
}
