/// Holds the caller's digits between the call's stream and the runner, so digits pressed while
/// a prompt plays wait for the menu, and a wait for the next digit can end at a deadline.
actor DigitInbox {
    enum Event: Equatable {
        case digit(Character)
        case timedOut
        /// The digit stream finished: the call is over.
        case ended
        case cancelled
    }

    private var buffered: [Character] = []
    private(set) var received: [Character] = []
    private var ended = false
    private var waiter: (id: UInt64, continuation: CheckedContinuation<Event, Never>)?
    private var lastWaiterID: UInt64 = 0
    private var watcher: (@Sendable () -> Void)?

    func push(_ digit: Character) {
        received.append(digit)
        if let waiter = takeWaiter() {
            waiter.resume(returning: .digit(digit))
        } else {
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
    }

    func discardBuffered() { buffered.removeAll() }

    /// The next digit, or `.timedOut` once `deadline` passes with none, or `.ended`.
    func next(before deadline: ContinuousClock.Instant) async -> Event {
        if !buffered.isEmpty { return .digit(buffered.removeFirst()) }
        if ended { return .ended }
        if Task.isCancelled { return .cancelled }
        if deadline <= .now { return .timedOut }
        lastWaiterID += 1
        let id = lastWaiterID
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            await self?.resolve(id, with: .timedOut)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in waiter = (id, continuation) }
        } onCancel: {
            Task { await self.resolve(id, with: .cancelled) }
        }
    }

    private func resolve(_ id: UInt64, with event: Event) {
        guard waiter?.id == id else { return }
        takeWaiter()?.resume(returning: event)
    }

    private func takeWaiter() -> CheckedContinuation<Event, Never>? {
        defer { waiter = nil }
        return waiter?.continuation
    }
}
