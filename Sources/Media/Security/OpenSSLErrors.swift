import Glibc

/// OpenSSL's thread-local error queue. The COpenSSL shim does not include <openssl/err.h>, so
/// the three functions are looked up in the loaded libcrypto (they are plain, non-variadic C
/// functions). A stale entry left in the queue would make the next SSL_get_error on this thread,
/// for any call, report a fatal error, so every failure path clears it.
enum OpenSSLErrors {
    private typealias GetError = @convention(c) () -> UInt
    private typealias ClearError = @convention(c) () -> Void
    private typealias ErrorString = @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let handle = dlopen(nil, RTLD_NOW) else { return nil }
        return dlsym(handle, name)
    }

    private static let getError: GetError? = symbol("ERR_get_error").map { unsafeBitCast($0, to: GetError.self) }
    private static let clearError: ClearError? = symbol("ERR_clear_error").map { unsafeBitCast($0, to: ClearError.self) }
    private static let errorString: ErrorString? = symbol("ERR_error_string_n").map { unsafeBitCast($0, to: ErrorString.self) }

    static func clear() { clearError?() }

    /// The oldest queued error as text, then clears the queue.
    static func takeText(fallback: String) -> String {
        defer { clear() }
        guard let getError, let errorString else { return fallback }
        let code = getError()
        guard code != 0 else { return fallback }
        var text = [CChar](repeating: 0, count: 256)
        errorString(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
