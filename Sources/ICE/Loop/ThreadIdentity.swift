import Glibc

/// Which thread a loop runs on, so that tests (and assertions) can tell whether code
/// runs where it should. Written once by the thread itself before anyone reads it (the writer
/// signals a semaphore the reader waits on), read from any thread after that.
final class ThreadIdentity: @unchecked Sendable {
    private var thread: pthread_t?

    init() {}

    /// Called once, on the thread to remember.
    func adoptCurrentThread() {
        thread = pthread_self()
    }

    var isCurrent: Bool {
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }
}
