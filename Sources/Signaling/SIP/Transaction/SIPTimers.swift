/// RFC 3261 §17's timer values, in seconds (the times the transaction layer takes as `now`).
/// The defaults are the RFC's; tests and hostile-peer checks may shorten them.
package struct SIPTimers: Sendable, Equatable {
    /// The round-trip estimate: the first retransmission interval (Timers A, E, G).
    package var t1 = 0.5
    /// The longest retransmission interval for non-INVITE requests and INVITE responses.
    package var t2 = 4.0
    /// How long a message may stay in the network: Timers I and K.
    package var t4 = 5.0
    /// Timer D: how long a completed INVITE client transaction absorbs retransmitted responses
    /// on an unreliable transport ("at least 32 s").
    package var timerD = 32.0
    /// How long an INVITE that had a provisional response waits for the next response before
    /// it is cancelled: RFC 3261 §16.6's Timer C ("greater than 3 minutes"), which a UAS keeps
    /// from firing by repeating its provisional response every minute (§13.3.1.1).
    package var timerC = 181.0

    package init() {}

    /// 64·T1: Timers B, F, H, J, and RFC 6026's L and M.
    package var transactionTimeout: Double { 64 * t1 }
}
