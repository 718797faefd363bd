/// Lines shared by offers and answers: transport, ICE, codecs.
enum MediaSectionWriter {
    static let anyAddress = Connection(address: "0.0.0.0")

    /// The port and address of the m= line: the first candidate once gathering is complete, else
    /// the JSEP placeholder 9 / 0.0.0.0 (RFC 8829 §5.2.1).
    static func defaultAddress(_ ice: ICEDescription) -> (port: Int, connection: Connection) {
        guard ice.gatheringComplete, let first = ice.candidates.first(where: { $0.component == 1 }) else {
            return (9, anyAddress)
        }
        let type = first.address.contains(":") ? "IP6" : "IP4"
        return (first.port, Connection(addressType: type, address: first.address))
    }

    static func iceAttributes(_ ice: ICEDescription) -> [Attribute] {
        var attributes = [ICEUsernameFragment(ice.ufrag).attribute, ICEPassword(ice.password).attribute]
        if ice.trickle { attributes.append(ICEOptions(["trickle"]).attribute) }
        return attributes
    }

    static func candidateAttributes(_ ice: ICEDescription) -> [Attribute] {
        var attributes = ice.candidates.map(\.attribute)
        if ice.gatheringComplete { attributes.append(EndOfCandidates().attribute) }
        return attributes
    }

    /// rtpmap and fmtp lines for `codecs`, numbered as given.
    static func codecAttributes(_ codecs: [(payloadType: Int, capability: CodecCapability)]) -> [Attribute] {
        var attributes: [Attribute] = []
        for (payloadType, capability) in codecs {
            var map = capability.rtpMap
            map.payloadType = payloadType
            attributes.append(map.attribute)
            if let parameters = capability.parameters {
                attributes.append(FormatParameters(format: String(payloadType), parameters: parameters).attribute)
            }
        }
        return attributes
    }

    static func origin(sessionId: String, sessionVersion: String) -> Origin {
        Origin(username: "-", sessionId: sessionId, sessionVersion: sessionVersion, address: "127.0.0.1")
    }
}
