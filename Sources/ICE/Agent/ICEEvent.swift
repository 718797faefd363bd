/// What an agent reports, in order, on `ICEAgent.events`.
package enum ICEEvent: Sendable, Equatable {
    /// An SDP attribute value, `candidate:...` without `a=`.
    case localCandidate(String)
    case gatheringComplete
    case state(ICEConnectionState)
    case selectedPair(ICESelectedPair)
    /// Something could not be used but the agent goes on (e.g. one TURN server of several, or a
    /// remote `.local` candidate that does not resolve).
    case warning(ICEError)
    /// The agent cannot connect; `state(.failed)` follows or has come.
    case failed(ICEError)
}

public enum ICEConnectionState: String, Sendable, Equatable {
    case new
    case gathering
    case checking
    case connected
    case completed
    case disconnected
    case failed
}

public enum ICECandidateType: String, Sendable, Equatable {
    case host
    case serverReflexive = "srflx"
    case peerReflexive = "prflx"
    case relay
}

/// How packets leave this host on a pair: a relay candidate is reached over UDP, TCP or TLS.
public enum ICEPairTransport: String, Sendable, Equatable {
    case udp
    case tcp
    case tls
}

/// The pair media flows on, for statistics.
public struct ICESelectedPair: Sendable, Equatable, CustomStringConvertible {
    public let component: Int
    public let localAddress: String
    public let localPort: Int
    public let localType: ICECandidateType
    public let remoteAddress: String
    public let remotePort: Int
    public let remoteType: ICECandidateType
    /// The transport to the first hop: the peer, or the TURN server for a local relay candidate.
    public let transport: ICEPairTransport
    /// Round-trip time on the pair, when known. The agent cannot measure it: libnice 0.1.21
    /// measures no RTT and keeps every STUN answer to itself (docs/ice.md). A call fills it in
    /// from RTCP on the media the pair carries (`withRoundTripTime`).
    public let roundTripTime: Duration?

    /// The same pair with a round-trip time measured on it by another layer.
    public func withRoundTripTime(_ roundTripTime: Duration?) -> ICESelectedPair {
        ICESelectedPair(component: component, localAddress: localAddress, localPort: localPort, localType: localType,
                        remoteAddress: remoteAddress, remotePort: remotePort, remoteType: remoteType,
                        transport: transport, roundTripTime: roundTripTime)
    }

    public var description: String {
        "\(localType.rawValue) \(localAddress):\(localPort) <-> \(remoteType.rawValue) \(remoteAddress):\(remotePort) over \(transport.rawValue)"
    }
}
