/// Where a description without ICE receives its media (RFC 3264 §5.7, RFC 3605): the m= port
/// and c= address of a classic SIP peer's RTP socket, and RTCP at the next port unless rtcp-mux
/// is agreed.
public struct PlainTransport: Sendable, Equatable {
    public var address: String
    public var port: Int

    public init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    var connection: Connection {
        Connection(addressType: address.contains(":") ? "IP6" : "IP4", address: address)
    }
}

/// The far end's transport in a description without ICE: where its RTP and RTCP go.
public struct PlainRemoteTransport: Sendable, Equatable {
    public var address: String
    public var rtpPort: Int
    /// `a=rtcp:PORT` when given (RFC 3605), else the RTP port plus one (RFC 3550 §11).
    public var rtcpPort: Int
    public var rtcpAddress: String
    public var rtcpMux: Bool

    /// Reads the section's transport, or nil when it names no usable address and port.
    public init?(_ section: MediaDescription, session: SessionDescription) {
        guard let connection = section.connections.first ?? session.connection, section.port > 0, section.port < 65536 else { return nil }
        address = connection.address
        rtpPort = section.port
        let rtcp = section.attributes.first(RTCPAddress.self)
        rtcpPort = rtcp?.port ?? section.port + 1
        rtcpAddress = rtcp?.connection?.address ?? connection.address
        rtcpMux = section.attributes.contains(RTCPMux.self)
    }
}

extension SessionDescription {
    /// True when no section and no session attribute carries ICE credentials: a classic SIP
    /// peer's description (a desk phone, a trunk), answered without ICE.
    public var isWithoutICE: Bool {
        !attributes.contains(named: ICEUsernameFragment.attributeName)
            && !media.contains { $0.attributes.contains(named: ICEUsernameFragment.attributeName) }
    }
}
