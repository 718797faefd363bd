/// An ordered list of munging rules, as a rules file holds them (docs/sdp.md, "Rules files").
/// Each rule is one `MungeRequest`, the same operations as the `parley sdp munge` flags, with an
/// optional scope: which SDPs it applies to (sent or received, offer or answer) and which media
/// kinds. Rules run in list order; the operations inside one rule run in `MungeRequest`'s order.
public struct MungeRules: Sendable {
    public var rules: [MungeRule]

    public init(_ rules: [MungeRule] = []) {
        self.rules = rules
    }

    /// One unscoped rule: what a set of flags means as a rules list.
    public init(_ request: MungeRequest) {
        self.rules = request.isEmpty ? [] : [MungeRule(request)]
    }

    public var isEmpty: Bool { rules.allSatisfy { $0.request.isEmpty } }

    /// Applies every rule whose scope takes an SDP of this direction and type.
    public func apply(to sdp: inout SessionDescription, direction: SDPDirection, type: SDPType) throws(MungeError) -> [MungeWarning] {
        var warnings: [MungeWarning] = []
        for rule in rules where rule.applies(direction: direction, type: type) {
            warnings += try rule.apply(to: &sdp)
        }
        return warnings
    }
}

/// Whether Parley sends an SDP or receives it.
public enum SDPDirection: String, Sendable, CaseIterable, Codable {
    case sent, received
}

/// An SDP's role in its offer/answer exchange.
public enum SDPType: String, Sendable, CaseIterable, Codable {
    case offer, answer
}

public struct MungeRule: Sendable {
    public var request: MungeRequest
    /// nil: both directions.
    public var direction: SDPDirection?
    /// nil: offers and answers.
    public var type: SDPType?
    /// Media kinds (`audio`, `video`, ...) the rule touches; nil: every m-line.
    public var media: Set<String>?

    public init(_ request: MungeRequest, direction: SDPDirection? = nil, type: SDPType? = nil, media: Set<String>? = nil) {
        self.request = request
        self.direction = direction
        self.type = type
        self.media = media
    }

    public func applies(direction: SDPDirection, type: SDPType) -> Bool {
        (self.direction ?? direction) == direction && (self.type ?? type) == type
    }

    /// Runs the request on the whole description, with m-lines of other kinds held out of reach:
    /// they are set aside as rejected non-RTP sections (which no operation touches or counts),
    /// then put back exactly as they were. Session-level lines (trickle's ice-options, candidates)
    /// change whatever the media scope.
    public func apply(to sdp: inout SessionDescription) throws(MungeError) -> [MungeWarning] {
        guard let media else { return try request.apply(to: &sdp) }
        let original = sdp.media
        let outside = sdp.media.indices.filter { !media.contains(sdp.media[$0].kind) }
        for index in outside {
            sdp.media[index].portText = "0"
            sdp.media[index].proto = "out-of-scope"
        }
        let warnings: [MungeWarning]
        do {
            warnings = try request.apply(to: &sdp)
        } catch {
            sdp.media = original
            throw error
        }
        for index in outside { sdp.media[index] = original[index] }
        return warnings
    }
}
