import Glibc

/// Names the calling thread as `top -H`, `perf`, `/proc/PID/task/*/comm` and debuggers show it.
/// Foundation's `Thread.name`, set before `start()`, names no thread on Linux: it stays
/// "com.apple.root.default-qos" unless the thread names itself, and the kernel takes at most
/// 15 bytes (a longer name is refused whole), so each of Parley's threads calls this first with
/// a name that fits (docs/architecture.md, "The threads"); a longer one is cut to fit.
public enum ThreadName {
    public static let maximumLength = 15

    public static func adopt(_ name: String) {
        // pthread_setname_np is a GNU extension Swift's Glibc does not import; the kernel takes
        // the same name written to the thread's comm file.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(maximumLength))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
