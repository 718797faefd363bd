/// A call's side of keeping its media through a network change (Call+Recovery.swift): whether our
/// addresses moved since the path was set up, the one renegotiation under way, the recovery whose
/// signalling is done and waits for media, the reconnect deadline, and the network watch of a call
/// that has no client to watch for it.
///
/// A value the call's actor keeps; it decides nothing about the call's state, which is the
/// machine's.
struct CallRecovery {
    let reconnectTimeout: Duration
    /// Our addresses changed since the media path was set up: the next re-offer restarts ICE.
    private(set) var networkMoved = false
    /// One recovery of the media path at a time (ours or the far end's).
    private(set) var renegotiating = false
    /// A recovery whose signalling is done, reported once media is back.
    private(set) var pendingPath: RecoveryPath?
    /// Ends the call if it is still dropped or reconnecting when it fires.
    private var deadline: Task<Void, Never>?
    /// Watches the host's network for a call that has no client to do it.
    private(set) var networkWatch: NetworkWatch?

    init(reconnectTimeout: Duration) {
        self.reconnectTimeout = reconnectTimeout
    }

    mutating func addressesMoved() {
        networkMoved = true
    }

    /// The path was set up anew from where we are now.
    mutating func pathRenewed() {
        networkMoved = false
    }

    /// Starts a renegotiation; false while another one is under way.
    mutating func beginRenegotiating() -> Bool {
        guard !renegotiating else { return false }
        renegotiating = true
        return true
    }

    mutating func endRenegotiating() {
        renegotiating = false
    }

    /// The signalling side of a recovery is done: it counts once media is back.
    mutating func signallingDone(by path: RecoveryPath) {
        pendingPath = path
    }

    /// Media is back: the recovery is over, its deadline with it.
    mutating func complete() {
        pendingPath = nil
        deadline?.cancel()
        deadline = nil
    }

    var hasDeadline: Bool { deadline != nil }

    /// `task` ends the call when the reconnect timeout passes; the first one armed stays.
    mutating func arm(deadline task: Task<Void, Never>) {
        guard deadline == nil else { return task.cancel() }
        deadline = task
    }

    /// The deadline fired: it is spent.
    mutating func deadlinePassed() {
        deadline = nil
    }

    /// A call with no client watches the network itself, once.
    mutating func watching(_ watch: NetworkWatch?) {
        networkWatch = watch
    }

    /// The call ended: the deadline is cancelled, and the watch handed back to be closed.
    mutating func end() -> NetworkWatch? {
        deadline?.cancel()
        deadline = nil
        defer { networkWatch = nil }
        return networkWatch
    }
}
