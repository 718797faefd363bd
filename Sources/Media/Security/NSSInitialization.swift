import Glibc

/// Debian's libsrtp2 does its AES-GCM and HMAC through NSS and initialises NSS itself, with
/// `NSS_INIT_OPTIMIZESPACE`: the softoken then keeps every key and session of the process in
/// small hash tables behind one lock. Every SRTP packet looks its key and session up there, so
/// each lookup walks chains that grow with the calls in the process, and every shard's network
/// and clock threads take that one lock (docs/performance.md, "Why the hold fell behind the ramp").
/// Initialising NSS before libsrtp2 does, the same way but without that flag, gives the softoken
/// its time-optimised tables and locks; libsrtp2's own `NSS_InitContext` then only adds a
/// reference. Where libsrtp2 is built on OpenSSL, NSS is not in the process and nothing is done.
enum NSSInitialization {
    /// `NSS_INIT_READONLY | NSS_INIT_NOCERTDB | NSS_INIT_NOMODDB | NSS_INIT_FORCEOPEN` (nss.h):
    /// libsrtp2's flags less `NSS_INIT_OPTIMIZESPACE` (0x20).
    static let flags: UInt32 = 0x01 | 0x02 | 0x04 | 0x08

    private typealias InitContext = @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UInt32
    ) -> OpaquePointer?

    /// True when NSS is in the process and this call initialised it (or it already was).
    static let initialized: Bool = {
        // libnss3 is loaded with libsrtp2 when libsrtp2 uses it; looked up, not linked, so a
        // libsrtp2 built on OpenSSL needs no NSS.
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "NSS_InitContext") else { return false }
        let initContext = unsafeBitCast(symbol, to: InitContext.self)
        return initContext("", "", "", "", nil, flags) != nil
    }()
}
