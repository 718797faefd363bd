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

    /// The `candidate:...` attribute value (libnice writes `a=candidate:...`).
    static func line(agent: OpaquePointer, candidate: UnsafeMutablePointer<NiceCandidate>) -> String? {
        guard let text = nice_agent_generate_local_candidate_sdp(agent, candidate) else { return nil }
        defer { g_free(text) }
        let line = String(cString: text)
        return line.hasPrefix("a=") ? String(line.dropFirst(2)) : line
    }

    /// The TURN server a relay candidate was allocated on, as "ip:port".
    static func relayServer(_ candidate: UnsafePointer<NiceCandidate>) -> String? {
        var server = NiceAddress()
        nice_address_init(&server)
        nice_candidate_relay_address(candidate, &server)
        guard nice_address_is_valid(&server) != 0 else { return nil }
        let (host, port) = address(&server)
        return "\(host):\(port)"
    }

    /// libnice gives relays reached over UDP type preference 30 and over TCP/TLS 20.
    static func relayUsesUDP(_ candidate: UnsafePointer<NiceCandidate>) -> Bool {
        candidate.pointee.priority >> 24 >= 30
    }
}
