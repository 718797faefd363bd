import CSRTP

/// Why libsrtp2 refused a packet or a session.
package enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    case libraryInitialization(Int32)
    case invalidKeyLength(expected: Int, actual: Int)
    case sessionCreation(Int32)
    case authenticationFailed
    case replay
    case bufferTooSmall(needed: Int, capacity: Int)
    case other(Int32)

    package var description: String {
        switch self {
        case .libraryInitialization(let code): "srtp_init failed (\(code))"
        case .invalidKeyLength(let expected, let actual): "SRTP master key and salt must be \(expected) bytes, got \(actual)"
        case .sessionCreation(let code): "srtp_create failed (\(code))"
        case .authenticationFailed: "SRTP authentication failed"
        case .replay: "SRTP replay rejected"
        case .bufferTooSmall(let needed, let capacity): "SRTP buffer of \(capacity) bytes, \(needed) needed"
        case .other(let code): "libsrtp2 error \(code)"
        }
    }

    init(status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replay
        default: self = .other(Int32(status.rawValue))
        }
    }
}

/// libsrtp2 must be initialised once per process before any session exists; NSS before it
/// (`NSSInitialization`), since `srtp_init`'s self-tests already make ciphers.
enum SRTPLibrary {
    static let status: Int32 = {
        _ = NSSInitialization.initialized
        return Int32(srtp_init().rawValue)
    }()

    static func ensureInitialized() throws(SRTPError) {
        guard status == Int32(srtp_err_status_ok.rawValue) else { throw .libraryInitialization(status) }
    }
}

/// One direction of SRTP and SRTCP (protect for outbound, unprotect for inbound), with libsrtp2's
/// replay protection. Works in place; allocates nothing per packet. Not thread-safe.
package final class SRTPContext {
    package enum Direction: Sendable { case outbound, inbound }

    /// Bytes protect may add after the packet.
    package static let maximumTrailer = Int(SRTP_MAX_TRAILER_LEN)

    package let profile: SRTPProfile
    package let direction: Direction
    private var session: srtp_t?

    package init(profile: SRTPProfile, masterKey: [UInt8], direction: Direction) throws(SRTPError) {
        try SRTPLibrary.ensureInitialized()
        guard masterKey.count == profile.masterLength else { throw .invalidKeyLength(expected: profile.masterLength, actual: masterKey.count) }
        self.profile = profile
        self.direction = direction
        var policy = srtp_policy_t()
        profile.setPolicies(rtp: &policy.rtp, rtcp: &policy.rtcp)
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = 1024
        policy.allow_repeat_tx = 0
        var key = masterKey
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        // Wipe our copy; libsrtp keeps its own derived keys.
        for index in key.indices { key[index] = 0 }
        guard status == srtp_err_status_ok, let created else { throw .sessionCreation(Int32(status.rawValue)) }
        session = created
    }

    deinit {
        if let session { srtp_dealloc(session) }
    }

    /// Protects the RTP packet of `length` bytes at the start of `buffer`; returns the SRTP length.
    package func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(buffer, length: length, grows: true) { srtp_protect($0, $1, $2) }
    }

    package func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(buffer, length: length, grows: true) { srtp_protect_rtcp($0, $1, $2) }
    }

    /// Verifies and decrypts in place; returns the plain RTP length.
    package func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(buffer, length: length, grows: false) { srtp_unprotect($0, $1, $2) }
    }

    func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(buffer, length: length, grows: false) { srtp_unprotect_rtcp($0, $1, $2) }
    }

    private func run(
        _ buffer: UnsafeMutableRawBufferPointer, length: Int, grows: Bool,
        _ operation: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>) -> srtp_err_status_t
    ) throws(SRTPError) -> Int {
        let needed = length + (grows ? Self.maximumTrailer : 0)
        guard buffer.count >= needed, length >= 4 else { throw .bufferTooSmall(needed: max(needed, 4), capacity: buffer.count) }
        var size = Int32(length)
        let status = operation(session, buffer.baseAddress, &size)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(size)
    }
}
