/// Adds trickled candidates to an SDP's first audio section, as text: the switch relays
/// descriptions and does not need to understand the rest of them.
enum SDPCandidates {
    static func adding(_ candidates: [String], to sdp: String) -> String {
        guard !candidates.isEmpty else { return sdp }
        var lines = sdp.components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        guard let audio = lines.firstIndex(where: { $0.hasPrefix("m=audio") }) else { return sdp }
        let end = lines[(audio + 1)...].firstIndex { $0.hasPrefix("m=") } ?? lines.endIndex
        var known = Set(lines[audio..<end])
        var added: [String] = []
        for candidate in candidates {
            let line = candidate.hasPrefix("a=") ? candidate : "a=" + candidate
            if known.insert(line).inserted { added.append(line) }
        }
        guard !added.isEmpty else { return sdp }
        if !known.contains("a=end-of-candidates") { added.append("a=end-of-candidates") }
        lines.insert(contentsOf: added, at: end)
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The `a=candidate` lines of the first audio section, as `candidate:…` values.
    static func lines(in sdp: String) -> [String] {
        var inAudio = false
        var found: [String] = []
        // "\r\n" is one Character: split on newlines, not on "\r" or "\n".
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") {
                if inAudio { break }
                inAudio = line.hasPrefix("m=audio")
            } else if inAudio, line.hasPrefix("a=candidate:") {
                found.append(String(line.dropFirst(2)))
            }
        }
        return found
    }
}
