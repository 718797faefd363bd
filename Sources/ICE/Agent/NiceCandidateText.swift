import CNice

/// Reading libnice candidates and addresses into Swift values.
enum NiceCandidateText {
    static func address(_ address: UnsafePointer<NiceAddress>) -> (String, Int) {
        var buffer = [CChar](repeating: 0, count: 64)
        nice_address_to_string(address, &buffer)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (text, Int(nice_address_get_port(address)))
    }

    static func type(_ candidate: UnsafePointer<NiceCandidate>) -> ICECandidateType {
        switch candidate.pointee.type {
        case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: .serverReflexive
        case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: .peerReflexive
        case NICE_CANDIDATE_TYPE_RELAYED: .relay
        default: .host
        }
    }

    /// Type, transport, address and component, for debug logs (a candidate holds no secret).
    static func summary(_ candidate: UnsafeMutablePointer<NiceCandidate>) -> String {
        let (host, port) = address(&candidate.pointee.addr)
        let transport = switch candidate.pointee.transport {
        case NICE_CANDIDATE_TRANSPORT_UDP: "udp"
        case NICE_CANDIDATE_TRANSPORT_TCP_ACTIVE: "tcp-active"
        case NICE_CANDIDATE_TRANSPORT_TCP_PASSIVE: "tcp-passive"
        default: "tcp-so"
        }
        return "\(type(candidate).rawValue) \(transport) \(host):\(port) component \(candidate.pointee.component_id)"
    }

    /// The `candidate:...` attribute value (libnice writes `a=candidate:...`).
    static func line(agent: OpaquePointer, candidate: UnsafeMutablePointer<NiceCandidate>) -> String? {
        guard let text = nice_agent_generate_local_candidate_sdp(agent, candidate) else { return nil }
        defer { g_free(text) }
        let line = String(cString: text)
        return line.hasPrefix("a=") ? String(line.dropFirst(2)) : line
    }

    /// Which TURN server (its position in the order given to libnice) a relay candidate comes
    /// from. libnice's signals carry copies without the server, but it writes the position into
    /// bits 6-8 of the local preference (priority bits 14-16) so that each server's relay
    /// candidates differ in priority.
    static func relayServerIndex(_ candidate: UnsafePointer<NiceCandidate>) -> Int {
        Int((candidate.pointee.priority >> 14) & 0x7)
    }
}
