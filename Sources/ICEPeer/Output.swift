import Foundation
import Locking

/// Writes one JSON object per line on stdout, whole lines only.
enum Output {
    private static let lock = Lock(())

    static func emit(_ fields: [String: any Sendable]) {
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        lock.withLock { _ in FileHandle.standardOutput.write(data + Data("\n".utf8)) }
    }
}
