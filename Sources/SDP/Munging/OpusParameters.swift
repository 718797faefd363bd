/// Opus receive parameters (RFC 7587 §6.1) and the packet time, as munging sets them.
public struct OpusParameters: Sendable, Equatable {
    public var maxPlaybackRate: Int?
    public var maxAverageBitrate: Int?
    public var useDTX: Bool?
    public var useInbandFEC: Bool?
    /// Milliseconds; written as `a=ptime`.
    public var ptime: Double?

    public init(maxPlaybackRate: Int? = nil, maxAverageBitrate: Int? = nil, useDTX: Bool? = nil, useInbandFEC: Bool? = nil, ptime: Double? = nil) {
        self.maxPlaybackRate = maxPlaybackRate
        self.maxAverageBitrate = maxAverageBitrate
        self.useDTX = useDTX
        self.useInbandFEC = useInbandFEC
        self.ptime = ptime
    }

    public enum Preset: String, Sendable, CaseIterable {
        /// What browsers use: wideband-ish playback, 40 kb/s, no DTX, FEC, 20 ms.
        case webrtc
        /// Lean: 16 kHz playback, 20 kb/s, DTX, FEC, 60 ms packets.
        case preferred

        public var parameters: OpusParameters {
            switch self {
            case .webrtc: OpusParameters(maxPlaybackRate: 24000, maxAverageBitrate: 40000, useDTX: false, useInbandFEC: true, ptime: 20)
            case .preferred: OpusParameters(maxPlaybackRate: 16000, maxAverageBitrate: 20000, useDTX: true, useInbandFEC: true, ptime: 60)
            }
        }
    }

    /// The keys `--opus KEY=VALUE` accepts.
    public static let keys = ["maxplaybackrate", "maxaveragebitrate", "usedtx", "useinbandfec", "ptime"]

    /// Applies `KEY=VALUE` overrides on top of `preset`. A value outside RFC 7587's range is
    /// ignored with a warning, keeping the preset's value; an unknown key is an error.
    public static func resolve(preset: Preset?, overrides: [(key: String, value: String)]) throws(MungeError) -> (OpusParameters, [MungeWarning]) {
        var result = preset?.parameters ?? OpusParameters()
        var warnings: [MungeWarning] = []
        for (key, value) in overrides {
            let fallback = preset.map { "using the \($0.rawValue) preset's value" } ?? "left as it is"
            func reject(_ range: String) {
                warnings.append(MungeWarning("opus \(key)=\(value) is outside \(range); ignored, \(fallback)"))
            }
            switch key.lowercased() {
            case "maxplaybackrate":
                guard let rate = Lexer.integer(value, in: 8000...48000) else { reject("8000-48000"); continue }
                result.maxPlaybackRate = rate
            case "maxaveragebitrate":
                guard let rate = Lexer.integer(value, in: 6000...510_000) else { reject("6000-510000"); continue }
                result.maxAverageBitrate = rate
            case "usedtx":
                guard let flag = Lexer.integer(value, in: 0...1) else { reject("0 or 1"); continue }
                result.useDTX = flag == 1
            case "useinbandfec":
                guard let flag = Lexer.integer(value, in: 0...1) else { reject("0 or 1"); continue }
                result.useInbandFEC = flag == 1
            case "ptime":
                guard let ms = Lexer.decimal(value), isValidPTime(ms) else { reject("multiples of 2.5 ms up to 120"); continue }
                result.ptime = ms
            default:
                throw MungeError("unknown Opus parameter \"\(key)\"; known: \(keys.joined(separator: ", "))")
            }
        }
        return (result, warnings)
    }

    /// Opus frames are 2.5, 5, 10, 20, 40 or 60 ms, and a packet carries up to 120 ms (RFC 6716).
    static func isValidPTime(_ milliseconds: Double) -> Bool {
        milliseconds > 0 && milliseconds <= 120 && (milliseconds / 2.5).rounded() * 2.5 == milliseconds
    }

    var fmtpSettings: [(String, String)] {
        var settings: [(String, String)] = []
        if let maxPlaybackRate { settings.append(("maxplaybackrate", String(maxPlaybackRate))) }
        if let maxAverageBitrate { settings.append(("maxaveragebitrate", String(maxAverageBitrate))) }
        if let useDTX { settings.append(("usedtx", useDTX ? "1" : "0")) }
        if let useInbandFEC { settings.append(("useinbandfec", useInbandFEC ? "1" : "0")) }
        return settings
    }
}

extension SessionDescription {
    /// Writes `parameters` into the fmtp line of every Opus codec (adding the line when missing)
    /// and `a=ptime` into every section that carries Opus.
    @discardableResult
    public mutating func applyOpusParameters(_ parameters: OpusParameters) -> [MungeWarning] {
        if let ptime = parameters.ptime, !OpusParameters.isValidPTime(ptime) {
            return [MungeWarning("ptime \(formatMilliseconds(ptime)) is not a multiple of 2.5 ms up to 120; ignored")]
        }
        var touched = false
        for index in media.indices where media[index].isRTP {
            let opus = media[index].codecs.filter { $0.name.lowercased() == "opus" }
            guard !opus.isEmpty else { continue }
            touched = true
            for codec in opus {
                media[index].setFormatParameters(of: codec.payloadType, parameters.fmtpSettings)
            }
            if let ptime = parameters.ptime {
                media[index].setPTime(ptime)
            }
        }
        return touched ? [] : [MungeWarning("no m-line carries Opus; Opus parameters not applied")]
    }
}

extension MediaDescription {
    mutating func setFormatParameters(of payloadType: Int, _ settings: [(String, String)]) {
        guard !settings.isEmpty else { return }
        let format = String(payloadType)
        if let index = attributes.firstIndex(where: { $0.name == FormatParameters.attributeName && $0.describedFormat == format }),
            var fmtp = try? FormatParameters(attributeValue: attributes[index].value)
        {
            for (key, value) in settings { fmtp.set(key, to: value) }
            attributes[index].value = fmtp.attributeValue
            return
        }
        var fmtp = FormatParameters(format: format, parameters: "")
        for (key, value) in settings { fmtp.set(key, to: value) }
        let afterMap = attributes.firstIndex { $0.name == RTPMap.attributeName && $0.describedFormat == format }
        attributes.insert(fmtp.attribute, at: afterMap.map { $0 + 1 } ?? formatAttributesEnd)
    }

    mutating func setPTime(_ milliseconds: Double) {
        let line = PTime(milliseconds: milliseconds).attribute
        if let index = attributes.firstIndex(where: { $0.name == PTime.attributeName }) {
            attributes[index] = line
        } else {
            attributes.insert(line, at: formatAttributesEnd)
        }
    }
}
