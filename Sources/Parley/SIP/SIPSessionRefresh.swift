/// What to answer to a peer's offer inside an established call (a re-INVITE or an UPDATE,
/// RFC 3261 §14.2, RFC 3311) when the media stay as they are: the session timer's refresh, ICE's
/// re-offer with the chosen candidates as defaults (RFC 8445 §8.1.2), or hold and resume
/// (RFC 3264 §8.4). The answer is the description we last sent with the peer's direction mirrored
/// and the DTLS role we already hold; its `o=` version rises only when its body changed
/// (RFC 3264 §8). An offer that restarts ICE (new credentials) is not a refresh: it is thrown
/// back, and the call restarts its media for it (SIPCallSignalling+Restart.swift).
struct SIPSessionRefresh: Equatable {
    /// The media direction of an offer's audio (RFC 3264 §5.1, §6.1).
    enum Direction: String, CaseIterable {
        case sendrecv, sendonly, recvonly, inactive

        /// The direction an answer gives to an offer in this one.
        var mirrored: Direction {
            switch self {
            case .sendonly: .recvonly
            case .recvonly: .sendonly
            case .sendrecv, .inactive: self
            }
        }

        /// A peer that stops sending to us (sendonly, inactive) holds the call.
        var holds: Bool { self == .sendonly || self == .inactive }
    }

    /// The answer's SDP.
    let sdp: String
    /// The direction the peer offered.
    let offered: Direction

    enum Refusal: Error, Equatable {
        /// New ICE credentials: an ICE restart, which the call's media leg answers.
        case iceRestart
    }

    /// The answer to `offer`, made from `local` (the description we last sent, whose `o=` version
    /// is `version`); `remote` is the peer's description the call was set up with.
    static func answer(offer: String, local: String, version: UInt64, remote: String) throws(Refusal) -> SIPSessionRefresh {
        if let before = attribute("ice-ufrag", in: remote), let now = attribute("ice-ufrag", in: offer), before != now {
            throw .iceRestart
        }
        let offered = direction(of: offer)
        var lines = settled(local, remote: remote)
        setDirection(offered.mirrored, in: &lines)
        // An answer names no media identification or bundle the offer did not (RFC 9143 §7.3):
        // a re-offer without them (linphone's) would refuse ours.
        for attribute in ["a=mid:", "a=group:"] where !sdpLines(offer).contains(where: { $0.hasPrefix(attribute) }) {
            lines.removeAll { $0.hasPrefix(attribute) }
        }
        var answer = lines.joined(separator: "\r\n") + "\r\n"
        if answer != local, let versioned = withVersion(version + 1, in: answer) { answer = versioned }
        return SIPSessionRefresh(sdp: answer, offered: offered)
    }

    /// Our re-offer of the media as they are, `direction` ours (sendonly holds the peer, sendrecv
    /// resumes), made from `local` as `answer` makes its answers.
    static func reoffer(_ direction: Direction, local: String, version: UInt64, remote: String) -> String {
        var lines = settled(local, remote: remote)
        setDirection(direction, in: &lines)
        let offer = lines.joined(separator: "\r\n") + "\r\n"
        return offer == local ? offer : withVersion(version + 1, in: offer) ?? offer
    }

    /// `local`'s lines with the DTLS role the call settled on (RFC 5763 §5, RFC 8842 §5.5: a later
    /// offer or answer keeps the association's role): our offer's `actpass` becomes the role the
    /// peer's answer left us.
    private static func settled(_ local: String, remote: String) -> [String] {
        var lines = sdpLines(local)
        if let setup = lines.firstIndex(of: "a=setup:actpass") {
            lines[setup] = attribute("setup", in: remote) == "passive" ? "a=setup:active" : "a=setup:passive"
        }
        return lines
    }

    /// The audio section's direction attribute, else the session's, else sendrecv. An audio
    /// address of 0.0.0.0 is the old way to hold (RFC 3264 §8.4, RFC 2543: desk phones and
    /// gateways still send it): the peer takes nothing from us, so a sendrecv offer counts as
    /// sendonly and a recvonly one as inactive. Not with ICE, whose descriptions name 0.0.0.0
    /// when the address is yet to come from a candidate (RFC 8840 §4.2).
    static func direction(of sdp: String) -> Direction {
        var session: Direction?
        var audio: Direction?
        var sessionAddress: String?
        var audioAddress: String?
        var inAudio = false
        var inMedia = false
        for line in sdpLines(sdp) {
            if line.hasPrefix("m=") {
                inMedia = true
                inAudio = line.hasPrefix("m=audio")
            } else if line.hasPrefix("c=") {
                let address = line.split(separator: " ").last.map(String.init)
                if !inMedia { sessionAddress = address } else if inAudio, audioAddress == nil { audioAddress = address }
            } else if line.hasPrefix("a="), let direction = Direction(rawValue: String(line.dropFirst(2))) {
                if !inMedia { session = direction } else if inAudio, audio == nil { audio = direction }
            }
        }
        let direction = audio ?? session ?? .sendrecv
        guard ["0.0.0.0", "::"].contains(audioAddress ?? sessionAddress), attribute("ice-ufrag", in: sdp) == nil else { return direction }
        switch direction {
        case .sendrecv: return .sendonly
        case .recvonly: return .inactive
        case .sendonly, .inactive: return direction
        }
    }

    /// The `o=` line's session version (RFC 4566 §5.2), nil when the line is not well formed.
    static func version(of sdp: String) -> UInt64? {
        guard let origin = sdpLines(sdp).first(where: { $0.hasPrefix("o=") }) else { return nil }
        let fields = origin.split(separator: " ")
        return fields.count >= 6 ? UInt64(fields[2]) : nil
    }

    /// `sdp`, changed after `answer` or `reoffer` made it from `local` (SDES keys, MediaLeg+SDESRekey.swift),
    /// with the version one up if it differs from `local` and still has `local`'s.
    static func versioned(_ sdp: String, local: String, version: UInt64) -> String {
        guard sdp != local, Self.version(of: sdp) == version else { return sdp }
        return withVersion(version + 1, in: sdp) ?? sdp
    }

    static func withVersion(_ version: UInt64, in sdp: String) -> String? {
        var lines = sdpLines(sdp)
        guard let index = lines.firstIndex(where: { $0.hasPrefix("o=") }) else { return nil }
        var fields = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 6 else { return nil }
        fields[2] = String(version)
        lines[index] = fields.joined(separator: " ")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The first value of `a=name:value`, anywhere in the description.
    static func attribute(_ name: String, in sdp: String) -> String? {
        let prefix = "a=\(name):"
        return sdpLines(sdp).first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    private static func sdpLines(_ sdp: String) -> [String] {
        sdp.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
    }

    /// Replaces each direction attribute with `direction`, or adds one to the audio section.
    private static func setDirection(_ direction: Direction, in lines: inout [String]) {
        let attributes = Set(Direction.allCases.map { "a=\($0.rawValue)" })
        var found = false
        for index in lines.indices where attributes.contains(lines[index]) {
            lines[index] = "a=\(direction.rawValue)"
            found = true
        }
        guard !found, let audio = lines.firstIndex(where: { $0.hasPrefix("m=audio") }) else { return }
        let end = lines[(audio + 1)...].firstIndex { $0.hasPrefix("m=") } ?? lines.endIndex
        lines.insert("a=\(direction.rawValue)", at: end)
    }
}
