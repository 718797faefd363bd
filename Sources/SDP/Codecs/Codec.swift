/// One format of an RTP m= section, with what its rtpmap and fmtp say (or the static
/// assignment of RFC 3551 when a static payload type has no rtpmap).
public struct Codec: Sendable, Equatable {
    public var payloadType: Int
    public var name: String
    public var clockRate: Int
    /// Channels as written (`nil` means one).
    public var channels: Int?
    /// The fmtp parameter text, if any.
    public var parameters: String?
    /// True when the codec has no rtpmap line and its meaning comes from RFC 3551.
    public var isStaticAssignment: Bool

    public var channelCount: Int { channels ?? 1 }

    /// `name/rate[/channels]`, as users write it.
    public var label: String {
        var text = "\(name)/\(clockRate)"
        if let channels { text += "/\(channels)" }
        return text
    }

    /// Retransmission, redundancy and FEC formats that protect another codec rather than carry media.
    public var isCompanion: Bool { CodecKind.companionNames.contains(name.lowercased()) }
    public var isRetransmission: Bool { name.lowercased() == "rtx" }
    public var isTelephoneEvent: Bool { name.lowercased() == "telephone-event" }

    /// Payload types this codec refers to: `apt=` of rtx, the payload list of audio red (`111/111`).
    public var referencedPayloadTypes: [Int] {
        guard let parameters else { return [] }
        let fmtp = FormatParameters(format: String(payloadType), parameters: parameters)
        if isRetransmission { return fmtp.value(for: "apt").flatMap { Lexer.integer($0, in: 0...127) }.map { [$0] } ?? [] }
        if name.lowercased() == "red" {
            return Lexer.split(parameters, on: 0x2F).compactMap { Lexer.integer($0, in: 0...127) }
        }
        return []
    }
}

enum CodecKind {
    static let companionNames: Set<String> = ["rtx", "red", "ulpfec", "flexfec", "flexfec-03"]
}

/// RFC 3551 static payload types (name, clock rate, channels).
enum StaticPayloadTypes {
    static let table: [Int: (name: String, clockRate: Int, channels: Int?)] = [
        0: ("PCMU", 8000, nil), 3: ("GSM", 8000, nil), 4: ("G723", 8000, nil), 5: ("DVI4", 8000, nil),
        6: ("DVI4", 16000, nil), 7: ("LPC", 8000, nil), 8: ("PCMA", 8000, nil), 9: ("G722", 8000, nil),
        10: ("L16", 44100, 2), 11: ("L16", 44100, nil), 12: ("QCELP", 8000, nil), 13: ("CN", 8000, nil),
        14: ("MPA", 90000, nil), 15: ("G728", 8000, nil), 16: ("DVI4", 11025, nil), 17: ("DVI4", 22050, nil),
        18: ("G729", 8000, nil), 25: ("CelB", 90000, nil), 26: ("JPEG", 90000, nil), 28: ("nv", 90000, nil),
        31: ("H261", 90000, nil), 32: ("MPV", 90000, nil), 33: ("MP2T", 90000, nil), 34: ("H263", 90000, nil),
    ]

    /// Whether `payloadType` is statically assigned to this codec, so it needs no rtpmap there.
    static func isStatic(_ payloadType: Int, for codec: Codec) -> Bool {
        guard let entry = table[payloadType] else { return false }
        return entry.name.lowercased() == codec.name.lowercased() && entry.clockRate == codec.clockRate
            && (entry.channels ?? 1) == codec.channelCount
    }
}

extension MediaDescription {
    /// The formats of an RTP section as codecs, in format-list order. Formats with neither an
    /// rtpmap nor a static assignment are left out.
    public var codecs: [Codec] {
        guard isRTP else { return [] }
        let maps = attributes.values(RTPMap.self)
        let parameters = attributes.values(FormatParameters.self)
        return formats.compactMap { format in
            guard let payloadType = Int(format) else { return nil }
            let fmtp = parameters.first { $0.format == format }?.parameters
            if let map = maps.first(where: { $0.payloadType == payloadType }) {
                return Codec(
                    payloadType: payloadType, name: map.encodingName, clockRate: map.clockRate,
                    channels: map.channels, parameters: fmtp, isStaticAssignment: false)
            }
            guard let entry = StaticPayloadTypes.table[payloadType] else { return nil }
            return Codec(
                payloadType: payloadType, name: entry.name, clockRate: entry.clockRate,
                channels: entry.channels, parameters: fmtp, isStaticAssignment: true)
        }
    }
}
