import Parley

/// Holds the caller's digits between the call's stream and the runner, so digits pressed while
/// a prompt plays wait for the menu, and a wait for the next digit can end at a deadline.
package actor DigitInbox {
    package enum Event: Equatable {
        case digit(Character)
        case timedOut
        /// The digit stream finished: the call is over.
        case ended
        case cancelled
    }

    /// A far end can press keys for as long as a call lasts (a looping bot never reads them):
    /// the outcome keeps the first `keptDigits`, and at most `keptDigits` wait for a menu.
    package static let keptDigits = 1024

    private var buffered: [Character] = []
    package private(set) var received: [Character] = []
    package private(set) var receivedCount = 0
    private var ended = false
    private var waiter: (id: UInt64, continuation: CheckedContinuation<Event, Never>)?
    private var lastWaiterID: UInt64 = 0
    private var watcher: (@Sendable () -> Void)?
    /// The listening step now running (a number, so a late report of an earlier one is
    /// ignored), whether its sound came, and who waits for it.
    private var listening: UInt64 = 0
    private var heard = false
    private var soundWaiter: (id: UInt64, continuation: CheckedContinuation<SoundEvent, Never>)?

    enum SoundEvent: Equatable {
        case heard
        case timedOut
        case ended
        case cancelled
    }

    package func push(_ digit: Character) {
        receivedCount += 1
        if received.count < Self.keptDigits { received.append(digit) }
        if let waiter = takeWaiter() {
            waiter.resume(returning: .digit(digit))
        } else if buffered.count < Self.keptDigits {
            buffered.append(digit)
        }
        unwatch()?()
    }

    /// Calls `action` once, as soon as a digit is waiting or arrives; the digit stays for the
    /// next read (barge-in stops a prompt, the menu then takes the digit).
    func watch(_ action: @escaping @Sendable () -> Void) {
        if buffered.isEmpty { watcher = action } else { action() }
    }

    @discardableResult
    func unwatch() -> (@Sendable () -> Void)? {
        defer { watcher = nil }
        return watcher
    }

    func finish() {
        ended = true
        takeWaiter()?.resume(returning: .ended)
        takeSoundWaiter()?.resume(returning: .ended)
    }

    /// Starts a listening step; `hear(_:)` with the number it returns reports its sound.
    func beginListening() -> UInt64 {
        listening += 1
        heard = false
        return listening
    }

    func hear(_ step: UInt64) {
        guard step == listening else { return }
        if let waiter = takeSoundWaiter() { waiter.resume(returning: .heard) } else { heard = true }
    }

    /// Whether the sound of the listening step came before `deadline`, or the call ended.
    func nextSound(before deadline: ContinuousClock.Instant) async -> SoundEvent {
        await wait(until: deadline, settled: { settledSound(before: deadline) }) { soundWaiter = ($0, $1) }
    }

    /// What a wait for the sound returns without waiting, if anything.
    private func settledSound(before deadline: ContinuousClock.Instant) -> SoundEvent? {
        if heard {
            heard = false
            return .heard
        }
        if ended { return .ended }
        if Task.isCancelled { return .cancelled }
        if deadline <= .now { return .timedOut }
        return nil
    }

    private func takeSoundWaiter() -> CheckedContinuation<SoundEvent, Never>? {
        defer { soundWaiter = nil }
        return soundWaiter?.continuation
    }

    func discardBuffered() { buffered.removeAll() }

    /// The next digit, or `.timedOut` once `deadline` passes with none, or `.ended`.
    package func next(before deadline: ContinuousClock.Instant) async -> Event {
        await wait(until: deadline, settled: { settledEvent(before: deadline) }) { waiter = ($0, $1) }
    }

    /// What a wait for a digit returns without waiting, if anything.
    private func settledEvent(before deadline: ContinuousClock.Instant) -> Event? {
        if !buffered.isEmpty { return .digit(buffered.removeFirst()) }
        if ended { return .ended }
        if Task.isCancelled { return .cancelled }
        if deadline <= .now { return .timedOut }
        return nil
    }

    /// What `settled` gives now, or else the caller parked with `park` until its waiter is
    /// resumed: by an event, at `deadline` (timed out) or when its task is cancelled. The
    /// operation closure below does not capture the actor, so it runs off it: `isolation: self`
    /// brings the parking back onto the actor, and `settled` is asked again there for what came
    /// in between. Without both, `park` raced `finish()` on another thread: the call's end was
    /// lost (the bot waited out its timeout, or forever) or the process crashed (DigitInboxTests).
    private func wait<Result: Sendable>(until deadline: ContinuousClock.Instant, settled: () -> Result?,
                                        park: (UInt64, CheckedContinuation<Result, Never>) -> Void) async -> Result {
        if let result = settled() { return result }
        lastWaiterID += 1
        let id = lastWaiterID
        // Unstructured: the deadline must fire while this task is parked on a continuation; cancelled on return.
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            await self?.expire(id, cancelled: false)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: self) { continuation in
                if let result = settled() { continuation.resume(returning: result) } else { park(id, continuation) }
            }
        } onCancel: {
            // Unstructured: a cancellation handler is synchronous and cannot wait for the actor.
            Task { await self.expire(id, cancelled: true) }
        }
    }

    private func expire(_ id: UInt64, cancelled: Bool) {
        if waiter?.id == id { takeWaiter()?.resume(returning: cancelled ? .cancelled : .timedOut) }
        if soundWaiter?.id == id { takeSoundWaiter()?.resume(returning: cancelled ? .cancelled : .timedOut) }
    }

    private func takeWaiter() -> CheckedContinuation<Event, Never>? {
        defer { waiter = nil }
        return waiter?.continuation
    }
}
