import Parley

/// `parley call`'s second call for a three-way call: placed with `merge DEST` (or the `c` key),
/// merged with the first once it is answered, split with `unmerge` (`u`), hung up when the
/// first call ends. Its own audio is not played or recorded apart: while merged, the first call's
/// output carries both far ends (docs/calls.md, "Three-way calls").
actor ThreeWay {
    typealias Dialer = @Sendable (String) async throws(ParleyError) -> Call

    private let presenter: CallPresenter
    private let dial: Dialer
    private var second: Call?
    private var watcher: Task<Void, Never>?
    /// How long the second call may ring before it is given up.
    static let answerTimeout = Duration.seconds(60)

    init(presenter: CallPresenter, dial: @escaping Dialer) {
        self.presenter = presenter
        self.dial = dial
    }

    /// Calls `destination` and merges it with `first` once it is active.
    func add(_ destination: String, to first: Call) async throws(ParleyError) {
        let destination = try Call.checkedDestination(destination)
        if let second, !(await second.state.isDone) {
            throw ParleyError(kind: .callState, message: "a second call is already up; hang up and call again to merge another")
        }
        let call = try await dial(destination)
        second = call
        let (answered, outcome) = AsyncStream<Bool>.makeStream()
        let presenter = presenter
        let events = call.events
        // Unstructured: watches the second call for its life, past `add`; awaited when the merge ends.
        watcher = Task {
            for await event in events {
                presenter.event(call.id, event)
                if case .state(let state) = event, state == .active || state.isDone { outcome.yield(state == .active) }
            }
            outcome.finish()
        }
        // Unstructured: an answer deadline while `add` waits for the outcome; cancelled on return.
        let timer = Task {
            guard (try? await Task.sleep(for: Self.answerTimeout)) != nil else { return }
            await call.hangup()
        }
        var iterator = answered.makeAsyncIterator()
        let active = await iterator.next() ?? false
        timer.cancel()
        guard active else { throw ParleyError(kind: .callState, message: "the call to \(destination) ended before it was answered; nothing merged") }
        try await first.merge(with: call)
    }

    func unmerge(_ first: Call) async throws(ParleyError) {
        try await first.unmerge()
    }

    /// The first call ended: the second one ends too, and reports its end.
    func end() async {
        guard let second else { return }
        await second.hangup()
        await watcher?.value
        let reason = await second.waitUntilDone()
        presenter.ended(second.id, reason, statistics: await second.statistics())
    }
}
