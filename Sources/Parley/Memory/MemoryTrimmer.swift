import CMalloc
import Locking

/// Hands memory that malloc holds after it was freed back to the system, every `period`, on a
/// task of the cooperative pool (never a media clock or network thread; one per process).
///
/// glibc's malloc returns memory to the system only from the top of a heap, so a long-lived
/// block above freed ones keeps them resident: in the soak the live heap stays flat after the
/// warm-up while resident memory grows (docs/performance.md, "Soak"). `malloc_trim(0)` gives
/// back every whole free page of every arena.
package final class MemoryTrimmer: Sendable {
    /// Often enough that a process holding calls for hours keeps its resident memory near its live
    /// heap, rarely enough that the arena locks a trim holds while it runs cost the media clocks
    /// nothing measurable (figures in docs/performance.md, "Soak").
    package static let period: Duration = .seconds(30)

    /// The process's trimmer, which the long-running commands start (`answer`, `load`, `switch`,
    /// `call`) and whose figures their `clock` events carry.
    package static let process = MemoryTrimmer()

    /// Trims done so far, and the longest one took.
    package struct Figures: Sendable, Equatable {
        package var trims = 0
        package var longest: Duration = .zero
    }

    private struct State {
        var figures = Figures()
        var task: Task<Void, Never>?
    }

    private let trim: @Sendable () -> Void
    private let state = Lock(State())

    /// `trim` is what one trim does: `malloc_trim(0)` unless a test gives its own.
    package init(trim: @escaping @Sendable () -> Void = { MemoryTrimmer.releaseFreedMemory() }) {
        self.trim = trim
    }

    package var figures: Figures { state.withLock { $0.figures } }

    /// Starts trimming every `period`; a second start while running changes nothing.
    package func start(period: Duration = MemoryTrimmer.period) {
        state.withLock { state in
            guard state.task == nil else { return }
            // Unstructured: the periodic trim lives as long as the process's commands want it; `stop` cancels it.
            state.task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: period)
                    guard !Task.isCancelled, let self else { return }
                    self.trimNow()
                }
            }
        }
    }

    package func stop() {
        state.withLock { state in
            state.task?.cancel()
            state.task = nil
        }
    }

    /// One trim now, timed and counted.
    package func trimNow() {
        let clock = ContinuousClock()
        let took = clock.measure { trim() }
        state.withLock { state in
            state.figures.trims += 1
            state.figures.longest = max(state.figures.longest, took)
        }
    }

    /// `malloc_trim(0)`: every whole free page of every arena back to the system.
    @discardableResult
    package static func releaseFreedMemory() -> Bool { malloc_trim(0) == 1 }
}
