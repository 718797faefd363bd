/// A set of munging steps, as `parley sdp munge` takes them, applied in a fixed order:
/// payload renumbering, codec priority, bandwidth, Opus parameters and ptime, trickle, candidates.
public struct MungeRequest: Sendable {
    public var payloadReplacements: [(codec: CodecSelector, payloadType: Int)] = []
    public var codecPriority: [CodecSelector] = []
    public var bandwidths: [(kind: String, kbps: Int)] = []
    public var opusPreset: OpusParameters.Preset?
    /// `KEY=VALUE` Opus parameters on top of the preset; `ptime` among them.
    public var opusOverrides: [(key: String, value: String)] = []
    public var trickle: Bool?
    public var stripCandidates = false

    public init() {}

    public var isEmpty: Bool {
        payloadReplacements.isEmpty && codecPriority.isEmpty && bandwidths.isEmpty && opusPreset == nil
            && opusOverrides.isEmpty && trickle == nil && !stripCandidates
    }

    public func apply(to sdp: inout SessionDescription) throws(MungeError) -> [MungeWarning] {
        var warnings: [MungeWarning] = []
        for (codec, payloadType) in payloadReplacements {
            warnings += try sdp.replacePayloadType(of: codec, with: payloadType)
        }
        warnings += sdp.keepCodecs(codecPriority)
        for (kind, kbps) in bandwidths {
            warnings += try sdp.setReceiveBandwidth(kbps: kbps, for: kind)
        }
        if opusPreset != nil || !opusOverrides.isEmpty {
            let (parameters, resolveWarnings) = try OpusParameters.resolve(preset: opusPreset, overrides: opusOverrides)
            warnings += resolveWarnings
            warnings += sdp.applyOpusParameters(parameters)
        }
        if let trickle { sdp.setTrickle(trickle) }
        if stripCandidates { sdp.stripCandidates() }
        return warnings
    }

    // MARK: - The command-line forms

    /// `CODEC[;KEY=VALUE]:PT`, e.g. `opus/48000/2:105` or `H264/90000;profile-level-id=42e01f:102`.
    public static func parseReplacement(_ text: String) throws(MungeError) -> (codec: CodecSelector, payloadType: Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw MungeError("payload replacement \"\(text)\" must be CODEC[;KEY=VALUE]:PT, e.g. opus/48000/2:105")
        }
        let number = text[text.index(after: colon)...]
        guard let payloadType = Lexer.integer(number, in: 0...127) else {
            throw MungeError("payload replacement \"\(text)\": the new payload type must be a number from 0 to 127")
        }
        return (try CodecSelector(parsing: String(text[..<colon])), payloadType)
    }

    /// `opus,PCMU,telephone-event/8000`
    public static func parseCodecList(_ text: String) throws(MungeError) -> [CodecSelector] {
        var selectors: [CodecSelector] = []
        for part in Lexer.split(text, on: 0x2C) {
            selectors.append(try CodecSelector(parsing: part))
        }
        return selectors
    }

    /// `audio=64` (kbps)
    public static func parseBandwidth(_ text: String) throws(MungeError) -> (kind: String, kbps: Int) {
        let (kind, value) = Lexer.splitFirst(text, at: 0x3D)
        guard Lexer.isToken(kind), let value, let kbps = Lexer.integer(value, in: 1...10_000_000) else {
            throw MungeError("bandwidth \"\(text)\" must be KIND=KBPS, e.g. audio=64 or video=1500")
        }
        return (kind, kbps)
    }

    /// `webrtc` or `preferred`
    public static func parsePreset(_ text: String) throws(MungeError) -> OpusParameters.Preset {
        guard let preset = OpusParameters.Preset(rawValue: text) else {
            throw MungeError("the Opus preset must be webrtc or preferred, not \"\(text)\"")
        }
        return preset
    }

    /// `on` or `off`
    public static func parseTrickle(_ text: String) throws(MungeError) -> Bool {
        guard text == "on" || text == "off" else { throw MungeError("trickle must be on or off, not \"\(text)\"") }
        return text == "on"
    }

    /// `KEY=VALUE`
    public static func parseKeyValue(_ text: String) throws(MungeError) -> (key: String, value: String) {
        let (key, value) = Lexer.splitFirst(text, at: 0x3D)
        guard Lexer.isToken(key), let value, !value.isEmpty else {
            throw MungeError("\"\(text)\" must be KEY=VALUE, e.g. usedtx=1")
        }
        return (key, value)
    }
}
