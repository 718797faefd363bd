/// Everything between the transport and plain RTP/RTCP: RFC 7983 demultiplexing, the DTLS
/// handshake (or SDES keys), and SRTP/SRTCP in both directions. Packets that fail authentication,
/// replays, garbage, and media arriving before keys exist are dropped and counted, never fatal.
///
/// Not thread-safe: the owning session serialises calls. Its sending half (`SRTPSender`) can be
/// taken out once keys exist, to send from another thread. Allocates nothing per packet.
package final class SecureMediaChannel {
    package enum State: Sendable, Equatable {
        case negotiating
        case secure(SRTPProfile)
        /// Plain RTP passes as it is (`MediaSecurity.unencrypted`).
        case unencrypted
        case failed(DTLSError)
    }

    /// What `receive` found in a datagram. Plain bytes are in `plaintext` when it returns a kind.
    package enum Received: Equatable {
        case rtp(length: Int)
        case rtcp(length: Int)
        /// Consumed (DTLS) or dropped.
        case none
    }

    package struct Counters: Sendable, Equatable {
        package var authenticationFailures = 0
        package var replays = 0
        var droppedBeforeKeys = 0
        package var unknownDatagrams = 0
        /// DTLS datagrams the transport refused (no ICE pair yet), sent again at `start`.
        package var handshakeDatagramsRefused = 0
    }

    package static let bufferCapacity = 1500 + SRTPContext.maximumTrailer

    package private(set) var state = State.negotiating
    package private(set) var counters = Counters()
    /// Scratch for unprotecting in place; holds the plain packet after `receive`.
    package let plaintext: UnsafeMutableRawBufferPointer
    private let transport: any MediaTransport
    private var dtls: DTLSEndpoint?
    /// Until `takeSender`: the channel's own `send` uses it.
    private var sender: SRTPSender?
    private var inbound: SRTPContext?
    /// The peer's previous key after an SDES re-key (`rekey`): packets it protected before it
    /// heard our answer are still in flight. Tried only when `inbound` refuses a packet, and
    /// dropped at the first packet `inbound` takes.
    private var previousInbound: SRTPContext?
    /// Unencrypted: RTP and RTCP are taken as they arrive.
    private var passesPlain = false
    /// Handshake datagrams the transport refused, sent again when the session starts.
    private var refusedHandshake: [[UInt8]] = []
    private let stateChanged: (State) -> Void

    package init(security: MediaSecurity, transport: any MediaTransport, stateChanged: @escaping (State) -> Void = { _ in }) throws {
        self.transport = transport
        self.stateChanged = stateChanged
        plaintext = .allocate(byteCount: Self.bufferCapacity, alignment: 16)
        switch security {
        case .dtls(let identity, let role, let fingerprint, let profiles):
            // The endpoint is ours and never outlives us.
            dtls = try DTLSEndpoint(identity: identity, role: role, remoteFingerprint: fingerprint, profiles: profiles) { [unowned self] bytes in
                self.sendHandshake(bytes)
            }
        case .sdes(let material):
            try install(material)
        case .unencrypted:
            sender = SRTPSender(context: nil, transport: transport)
            passesPlain = true
            setState(.unencrypted)
        }
    }

    deinit { plaintext.deallocate() }

    var isSecure: Bool {
        switch state {
        case .secure, .unencrypted: true
        case .negotiating, .failed: false
        }
    }

    /// Starts the DTLS handshake (the client sends first), once the transport can carry it;
    /// sends again what it refused before. Nothing to do for SDES.
    package func start(now: ContinuousClock.Instant = .now) {
        dtls?.start(now: now)
        let refused = refusedHandshake
        refusedHandshake = []
        for datagram in refused {
            datagram.withUnsafeBytes { sendHandshake($0) }
        }
        checkHandshake()
    }

    /// DTLS retransmission and handshake deadline; call every tick.
    package func poll(now: ContinuousClock.Instant = .now) {
        guard let dtls, case .negotiating = state else { return }
        dtls.poll(now: now)
        checkHandshake()
    }

    package func receive(_ datagram: UnsafeRawBufferPointer) -> Received {
        let kind = PacketKind.classify(datagram)
        switch kind {
        case .dtls:
            guard let dtls else {
                counters.unknownDatagrams += 1
                return .none
            }
            dtls.receive(datagram)
            checkHandshake()
            return .none
        case .rtp, .rtcp:
            if passesPlain {
                guard datagram.count <= plaintext.count, let source = datagram.baseAddress else {
                    counters.unknownDatagrams += 1
                    return .none
                }
                plaintext.baseAddress!.copyMemory(from: source, byteCount: datagram.count)
                return kind == .rtp ? .rtp(length: datagram.count) : .rtcp(length: datagram.count)
            }
            guard let inbound else {
                counters.droppedBeforeKeys += 1
                return .none
            }
            guard datagram.count <= plaintext.count, let source = datagram.baseAddress else {
                counters.unknownDatagrams += 1
                return .none
            }
            plaintext.baseAddress!.copyMemory(from: source, byteCount: datagram.count)
            do {
                let taken = try Self.unprotect(kind, plaintext, length: datagram.count, with: inbound)
                previousInbound = nil
                return taken
            } catch .replay {
                counters.replays += 1
            } catch {
                // Copied again: an AEAD suite may have decrypted in place before its tag failed.
                if let previousInbound {
                    plaintext.baseAddress!.copyMemory(from: source, byteCount: datagram.count)
                    if let taken = try? Self.unprotect(kind, plaintext, length: datagram.count, with: previousInbound) { return taken }
                }
                counters.authenticationFailures += 1
            }
            return .none
        case .stun, .unknown:
            counters.unknownDatagrams += 1
            return .none
        }
    }

    /// Protects the plain packet of `length` bytes at the start of `buffer` (which must have
    /// `SRTPContext.maximumTrailer` spare bytes) and sends it. False when not secure yet, the
    /// sender was taken, or the transport refused.
    @discardableResult
    package func send(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) -> Bool {
        sender?.send(buffer, length: length, isRTCP: isRTCP) ?? false
    }

    /// The sending half, once secure, handed over for good: from then on only its new owner
    /// sends media, on its own thread, and this channel's `send` returns false. Nil before keys
    /// exist and after it was taken.
    package func takeSender() -> SRTPSender? {
        defer { sender = nil }
        return sender
    }

    /// A DTLS server answers a ClientHello as it arrives, which can be before its own side of ICE
    /// has selected a pair (the peer's checks succeeded first): the transport refuses the answer.
    /// Dropped, it would wait for the peer's retransmission; kept, it leaves when the session
    /// starts, the moment ICE connects (docs/performance.md, "Call setup"). A flight is a few
    /// datagrams; the newest few are kept.
    private func sendHandshake(_ bytes: UnsafeRawBufferPointer) {
        guard !transport.send(bytes) else { return }
        counters.handshakeDatagramsRefused += 1
        if refusedHandshake.count == Self.refusedHandshakeLimit { refusedHandshake.removeFirst() }
        refusedHandshake.append(Array(bytes))
    }

    static let refusedHandshakeLimit = 8

    private func checkHandshake() {
        guard let dtls, case .negotiating = state else { return }
        switch dtls.state {
        case .connected(let material):
            do {
                try install(material)
            } catch {
                setState(.failed(.keyExport))
            }
        case .failed(let error):
            setState(.failed(error))
        case .new, .handshaking:
            break
        }
    }

    private static func unprotect(_ kind: PacketKind, _ packet: UnsafeMutableRawBufferPointer, length: Int,
                                  with context: SRTPContext) throws(SRTPError) -> Received {
        kind == .rtp ? .rtp(length: try context.unprotectRTP(packet, length: length)) : .rtcp(length: try context.unprotectRTCP(packet, length: length))
    }

    /// An SDES re-key (RFC 4568 §7.1.4, docs/sip.md "Media per peer"): the peer's new key takes
    /// its packets from now on, its old one only those still in flight. With `local`, our own
    /// key changes too: the returned sender protects with it (the channel's own `send` uses it
    /// when the sender was not taken). Not on the packet path: it makes libsrtp sessions.
    package func rekey(_ material: SRTPKeyingMaterial, local: Bool) throws(SRTPError) -> SRTPSender? {
        let next = try SRTPContext(profile: material.profile, masterKey: material.remoteMasterKey, direction: .inbound)
        var sender: SRTPSender?
        if local {
            sender = SRTPSender(context: try SRTPContext(profile: material.profile, masterKey: material.localMasterKey, direction: .outbound),
                                transport: transport)
            if self.sender != nil { self.sender = sender }
        }
        previousInbound = inbound
        inbound = next
        if state != .secure(material.profile) { setState(.secure(material.profile)) }
        return sender
    }

    private func install(_ material: SRTPKeyingMaterial) throws(SRTPError) {
        sender = SRTPSender(context: try SRTPContext(profile: material.profile, masterKey: material.localMasterKey, direction: .outbound), transport: transport)
        inbound = try SRTPContext(profile: material.profile, masterKey: material.remoteMasterKey, direction: .inbound)
        setState(.secure(material.profile))
    }

    private func setState(_ newState: State) {
        state = newState
        stateChanged(newState)
    }
}
