import Media
import SDP

/// The SDES keys a call uses, ours and the peer's (RFC 4568): each side's `a=crypto` line
/// carries the key it protects its own packets with.
struct SDESPair: Equatable {
    var local: Crypto
    var remote: Crypto
}

/// A peer's re-offer inside an SDES call (a re-INVITE or UPDATE, docs/sip.md "Media per peer"):
/// RFC 4568 §7.1.4 lets it carry a new key or changed crypto attributes, which from then on
/// protect what it sends.
extension MediaLeg {
    /// Answers the keys of `reoffer`: `answer` (the refresh answer made from what we last sent)
    /// with its `a=crypto` lines replaced by our one line for the crypto we accept, under that
    /// crypto's tag (§7.1.2: the answer names the tag it accepts). When the peer's key or
    /// parameters changed, the session receives with them from now on. Our own key stays unless
    /// the suite changes, which needs a new key of the new suite's length: a key kept means none
    /// of our packets in flight is lost to the peer's new context. A call without SDES answers
    /// unchanged; a re-offer that drops SRTP or names no suite we accept throws (the request is
    /// refused and the session stays as it was, RFC 3261 §14.2).
    package func answerKeys(reoffer text: String, answer: String) throws(ParleyError) -> String {
        guard let current = sdesInUse, let session, !stopped else { return answer }
        let offer = try Self.parse(text)
        guard let section = offer.media.first(where: { $0.kind == "audio" && !$0.isRejected }) else { return answer }
        let next = try Self.keys(accepting: section.attributes.values(Crypto.self), current: current)
        if next.remote.suite != current.remote.suite || next.remote.keyParameters != current.remote.keyParameters
            || next.remote.sessionParameters != current.remote.sessionParameters {
            guard case .sdes(let material) = try Self.sdesSecurity(local: next.local, remote: next.remote) else { return answer }
            let ours = next.local.keyParameters != current.local.keyParameters
            do {
                try session.rekey(material, local: ours)
            } catch {
                throw ParleyError(error)
            }
            logger.info("SDES re-key: the peer's new key (\(next.remote.suite), tag \(next.remote.tag)) takes its packets\(ours ? "; ours is new too" : "")")
        }
        sdesInUse = next
        return Self.replacingCryptos(in: answer, with: next.local)
    }

    /// Our re-offer (hold, resume) with our one key in use, under its tag, in place of every
    /// `a=crypto` of what we last sent (our first offer had one per suite): the peer answers
    /// the keys it already has. Unchanged for a call without SDES.
    package func reofferKeys(_ offer: String) -> String {
        guard let current = sdesInUse else { return offer }
        return Self.replacingCryptos(in: offer, with: current.local)
    }

    /// The peer's answer to our re-offer: its one `a=crypto`, for the tag and suite we offered,
    /// may carry a new key of its own (§7.1.4), which then takes what we receive as in
    /// `answerKeys`. One for another crypto than ours throws, and the keys stay.
    package func takeAnsweredKeys(_ text: String) throws(ParleyError) {
        guard let current = sdesInUse, let session, !stopped else { return }
        let answer = try Self.parse(text)
        guard let section = answer.media.first(where: { $0.kind == "audio" && !$0.isRejected }),
            let theirs = section.attributes.values(Crypto.self).first
        else { throw .negotiation("the answer to our re-offer has no a=crypto: the call keeps its SDES keys") }
        guard theirs.tag == current.local.tag, theirs.suite == current.local.suite else {
            throw .negotiation("the answer to our re-offer names a=crypto tag \(theirs.tag) \(theirs.suite), not ours (tag \(current.local.tag))")
        }
        guard theirs.keyParameters != current.remote.keyParameters || theirs.sessionParameters != current.remote.sessionParameters else { return }
        guard case .sdes(let material) = try Self.sdesSecurity(local: current.local, remote: theirs) else { return }
        do {
            try session.rekey(material, local: false)
        } catch {
            throw ParleyError(error)
        }
        logger.info("SDES re-key: the peer's answer carries its new key (\(theirs.suite), tag \(theirs.tag))")
        sdesInUse = SDESPair(local: current.local, remote: theirs)
    }

    private static func sdesSecurity(local: Crypto, remote: Crypto) throws(ParleyError) -> MediaSecurity {
        do {
            return try MediaSecurity.sdes(local: local, remote: remote)
        } catch {
            throw .negotiation(error.description)
        }
    }

    /// The crypto we accept from a re-offer, and ours for it: the one the call uses if offered
    /// again (its tag and suite), else the first of the suite in use, else the first suite we
    /// accept, with a fresh key of ours.
    static func keys(accepting offered: [Crypto], current: SDESPair) throws(ParleyError) -> SDESPair {
        guard !offered.isEmpty else {
            throw .negotiation("the re-offer drops SRTP (no a=crypto): the call keeps its SDES keys")
        }
        let accepted = offered.first { $0.tag == current.remote.tag && $0.suite == current.remote.suite }
            ?? offered.first { $0.suite == current.local.suite }
            ?? offered.first { SDESKeys.suites.contains($0.suite) }
        guard let accepted else {
            throw .negotiation("the re-offer names no SRTP suite we accept (\(offered.map(\.suite).joined(separator: ", ")))")
        }
        var local = current.local
        local.tag = accepted.tag
        if accepted.suite != current.local.suite {
            guard let key = SDESKeys.inlineKey(for: accepted.suite) else { throw .negotiation("could not draw SDES keys from the random generator") }
            local = Crypto(tag: accepted.tag, suite: accepted.suite, keyParameters: key)
        }
        return SDESPair(local: local, remote: accepted)
    }

    /// `sdp` with every `a=crypto` line of its audio section replaced by `crypto`, where the
    /// first of them was.
    static func replacingCryptos(in sdp: String, with crypto: Crypto) -> String {
        var lines = sdp.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
        guard let audio = lines.firstIndex(where: { $0.hasPrefix("m=audio") }) else { return sdp }
        let end = lines[(audio + 1)...].firstIndex { $0.hasPrefix("m=") } ?? lines.endIndex
        let found = lines[audio..<end].indices.filter { lines[$0].hasPrefix("a=crypto:") }
        let line = "a=crypto:" + (crypto.attributeValue ?? "")
        guard let first = found.first else { return sdp }
        for index in found.reversed() { lines.remove(at: index) }
        lines.insert(line, at: first)
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
