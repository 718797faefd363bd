import SDP

/// The human view of `parley sdp parse`: one block per m= section, secrets already redacted.
enum SDPSummary {
    static func describe(_ sdp: SessionDescription) -> String {
        var lines = ["session \"\(sdp.sessionName)\" origin \(sdp.origin.username) \(sdp.origin.sessionId)/\(sdp.origin.sessionVersion)"]
        if let bundle = sdp.attributes.values(Group.self).first(where: \.isBundle) {
            lines.append("  bundle: \(bundle.mids.joined(separator: " "))")
        }
        for (index, media) in sdp.media.enumerated() {
            var head = "m-line \(index + 1): \(media.kind) port \(media.port) \(media.proto)"
            if media.isRejected { head += " (rejected)" }
            lines.append(head)
            if let mid = media.attributes.first(MediaID.self) { lines.append("  mid: \(mid.tag)") }
            if let direction = media.attributes.direction ?? sdp.attributes.direction { lines.append("  direction: \(direction.rawValue)") }
            let codecs = media.codecs
            if !codecs.isEmpty {
                lines.append("  codecs: " + codecs.map { "\($0.payloadType) \($0.label)" }.joined(separator: ", "))
            }
            if !media.bandwidths.isEmpty {
                lines.append("  bandwidth: " + media.bandwidths.map { "\($0.type) \($0.valueText)" }.joined(separator: ", "))
            }
            let attributes = media.attributes + sdp.attributes
            if let fingerprint = attributes.first(Fingerprint.self) {
                let setup = attributes.first(SetupRole.self)?.rawValue ?? "unspecified"
                lines.append("  dtls: \(fingerprint.hashFunction) fingerprint, setup \(setup)")
            }
            let cryptos = media.attributes.values(Crypto.self)
            if !cryptos.isEmpty { lines.append("  sdes: " + cryptos.map { "\($0.tag) \($0.suite)" }.joined(separator: ", ")) }
            if let ufrag = attributes.first(ICEUsernameFragment.self) {
                let candidates = media.attributes.values(Candidate.self)
                let options = attributes.first(ICEOptions.self)?.options.joined(separator: " ") ?? "none"
                lines.append("  ice: ufrag \(ufrag.ufrag), options \(options), \(candidates.count) candidate(s)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
