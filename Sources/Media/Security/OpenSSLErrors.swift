import COpenSSL

/// OpenSSL's thread-local error queue. A stale entry left in the queue would make the next
/// SSL_get_error on this thread, for any call, report a fatal error, so every failure path clears it.
enum OpenSSLErrors {
    static func clear() { ERR_clear_error() }

    /// The oldest queued error as text, then clears the queue.
    static func takeText(fallback: String) -> String {
        defer { clear() }
        let code = ERR_get_error()
        guard code != 0 else { return fallback }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
