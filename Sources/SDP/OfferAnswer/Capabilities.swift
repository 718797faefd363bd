/// A codec we can receive and send, with the payload type we offer it on.
public struct CodecCapability: Sendable, Equatable {
    public var name: String
    public var clockRate: Int
    public var channels: Int?
    public var preferredPayloadType: Int
    /// Our fmtp for this codec: what we want to receive (RFC 7587 §7 for Opus).
    public var parameters: String?

    public init(name: String, clockRate: Int, channels: Int? = nil, preferredPayloadType: Int, parameters: String? = nil) {
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.preferredPayloadType = preferredPayloadType
        self.parameters = parameters
    }

    public var isTelephoneEvent: Bool { name.lowercased() == "telephone-event" }

    func matches(_ codec: Codec) -> Bool {
        codec.name.lowercased() == name.lowercased() && codec.clockRate == clockRate && codec.channelCount == (channels ?? 1)
    }

    var rtpMap: RTPMap {
        RTPMap(payloadType: preferredPayloadType, encodingName: name, clockRate: clockRate, channels: channels)
    }
}

/// The audio codecs we support, in our order of preference.
public struct AudioCapabilities: Sendable, Equatable {
    public var codecs: [CodecCapability]
    /// Written as `a=ptime` when set.
    public var ptime: Double?

    public init(codecs: [CodecCapability], ptime: Double? = nil) {
        self.codecs = codecs
        self.ptime = ptime
    }

    /// Opus 48000/2, PCMU, PCMA, and telephone-event at 48000 (for Opus) and 8000 (for G.711).
    public static let standard = AudioCapabilities(codecs: [
        CodecCapability(name: "opus", clockRate: 48000, channels: 2, preferredPayloadType: 111, parameters: "minptime=10;useinbandfec=1"),
        CodecCapability(name: "PCMU", clockRate: 8000, preferredPayloadType: 0),
        CodecCapability(name: "PCMA", clockRate: 8000, preferredPayloadType: 8),
        CodecCapability(name: "telephone-event", clockRate: 48000, preferredPayloadType: 110, parameters: "0-15"),
        CodecCapability(name: "telephone-event", clockRate: 8000, preferredPayloadType: 126, parameters: "0-15"),
    ])
}

/// Our ICE side of a description (RFC 8839).
public struct ICEDescription: Sendable, Equatable {
    public var ufrag: String
    /// A secret: never logged.
    public var password: String
    /// Written as `a=ice-options:trickle` when true.
    public var trickle: Bool
    public var candidates: [Candidate]
    /// Gathering finished: `a=end-of-candidates` is written and the first candidate becomes the
    /// default address of the m= line.
    public var gatheringComplete: Bool

    public init(ufrag: String, password: String, trickle: Bool = true, candidates: [Candidate] = [], gatheringComplete: Bool = false) {
        self.ufrag = ufrag
        self.password = password
        self.trickle = trickle
        self.candidates = candidates
        self.gatheringComplete = gatheringComplete
    }
}

/// How we protect media in an offer.
public enum OfferSecurity: Sendable, Equatable {
    /// DTLS-SRTP with our certificate's fingerprint; we offer `setup:actpass`.
    case dtls(Fingerprint)
    /// SDES keys (RFC 4568), one `a=crypto` line per offered suite.
    case sdes([Crypto])
    /// Plain RTP/AVP, for a classic SIP peer that has no SRTP (`parley call --media plain`).
    case none
}

/// How we protect media in an answer.
public enum AnswerSecurity: Sendable, Equatable {
    /// DTLS-SRTP; `roleForActpass` is what we take when the offerer leaves the choice to us.
    case dtls(Fingerprint, roleForActpass: SetupRole = .active)
    /// SDES: our key parameters (`inline:...`) for each suite we accept, in our order.
    case sdes(keys: [String: String], suites: [String])
}

/// The media section the offer/answer exchange settled on.
public struct NegotiatedAudio: Sendable, Equatable {
    public var mid: String?
    /// Audio codecs in the answer's order; payload types are the offerer's.
    public var codecs: [Codec]
    public var telephoneEvents: [Codec]
    /// Our direction in the answer.
    public var direction: Direction
    /// Our DTLS role, for DTLS-SRTP.
    public var dtlsRole: SetupRole?
    /// The offerer's crypto line we accepted, for SDES.
    public var acceptedCrypto: Crypto?
    public var rtcpMux: Bool
}

/// The offer could not be answered with any audio.
public struct NegotiationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why each offered section was turned down.
    public let reasons: [String]
    public var description: String { "no acceptable audio in the offer: " + reasons.joined(separator: "; ") }
}
