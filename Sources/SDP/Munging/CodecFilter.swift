extension SessionDescription {
    /// Keeps, in each RTP section, only the codecs `priority` names, in that order. A dropped
    /// codec takes its rtpmap, fmtp and rtcp-fb lines and its companions with it: rtx follows the
    /// codec its `apt=` names; red and FEC formats stay only when listed and when every codec
    /// they carry stays. A section holding none of the listed codecs is left as it is.
    @discardableResult
    public mutating func keepCodecs(_ priority: [CodecSelector]) -> [MungeWarning] {
        guard !priority.isEmpty else { return [] }
        var warnings: [MungeWarning] = []
        for index in media.indices where media[index].isRTP && !media[index].isRejected {
            warnings += media[index].keepCodecs(priority, label: media[index].label(index: index))
        }
        return warnings
    }
}

extension MediaDescription {
    mutating func keepCodecs(_ priority: [CodecSelector], label: String) -> [MungeWarning] {
        let codecs = self.codecs
        func rank(_ codec: Codec) -> Int? { priority.firstIndex { $0.matches(codec) } }

        let primaries = codecs.enumerated().filter { !$0.element.isCompanion }
        var chosen = primaries.compactMap { entry in rank(entry.element).map { (rank: $0, position: entry.offset, codec: entry.element) } }
        guard !chosen.isEmpty else {
            if !primaries.isEmpty {
                return [MungeWarning("\(label): none of the listed codecs is here; left unchanged")]
            }
            return []
        }
        var kept = Set(chosen.map(\.codec.payloadType))
        for (position, codec) in codecs.enumerated() where codec.isCompanion && !codec.isRetransmission {
            guard let rank = rank(codec) else { continue }
            let carried = codec.referencedPayloadTypes
            guard carried.allSatisfy(kept.contains) else { continue }
            chosen.append((rank, position, codec))
            kept.insert(codec.payloadType)
        }
        chosen.sort { ($0.rank, $0.position) < ($1.rank, $1.position) }

        var order: [Int] = []
        for entry in chosen {
            order.append(entry.codec.payloadType)
            for rtx in codecs where rtx.isRetransmission && rtx.referencedPayloadTypes.first == entry.codec.payloadType {
                order.append(rtx.payloadType)
            }
        }
        kept = Set(order)

        var warnings: [MungeWarning] = []
        let events = codecs.filter(\.isTelephoneEvent)
        if !events.isEmpty && !events.contains(where: { kept.contains($0.payloadType) }) {
            warnings.append(MungeWarning("\(label): telephone-event dropped, so RFC 4733 DTMF will not be negotiated; list telephone-event to keep it"))
        }
        let known = Set(codecs.map(\.payloadType))
        let dropped = Set(known.subtracting(kept).map(String.init))
        // Formats we could not identify (no rtpmap, not static) stay at the end, untouched.
        let unknown = formats.filter { Int($0).map { !known.contains($0) } ?? true }
        formats = order.map(String.init) + unknown
        attributes.removeAll { attribute in attribute.describedFormat.map(dropped.contains) ?? false }
        return warnings
    }
}
