/// A structural comparison of two session descriptions (`parley sdp diff`): the session lines,
/// then each m-line by position, its codecs matched by name (and payload type or fmtp when a
/// name repeats), and its other lines matched by field. Line order within a field (candidates,
/// ssrc lines) and the line ending do not count as differences.
///
/// Every change carries the exact lines it removes and adds, so the diff accounts for each line
/// that differs and for nothing else.
public struct SDPDiff: Sendable, Equatable, Encodable {
    public var session: [SDPLineChange]
    public var media: [SDPMediaDiff]

    public var isEmpty: Bool { session.isEmpty && media.allSatisfy(\.isEmpty) }

    public init(from old: SessionDescription, to new: SessionDescription) {
        session = SDPLineChange.compare(SDPDiffLines.session(old), SDPDiffLines.session(new))
        media = []
        for index in 0..<max(old.media.count, new.media.count) {
            let before = index < old.media.count ? old.media[index] : nil
            let after = index < new.media.count ? new.media[index] : nil
            let diff = SDPMediaDiff(index: index, old: before, new: after)
            if !diff.isEmpty { media.append(diff) }
        }
    }

    /// Every line the diff removes and adds, for checking that it accounts for all of them.
    public var removedLines: [String] { session.flatMap(\.removed) + media.flatMap(\.removedLines) }
    public var addedLines: [String] { session.flatMap(\.added) + media.flatMap(\.addedLines) }
}

/// One field whose lines differ: added, removed, or changed (one line became another).
public struct SDPLineChange: Sendable, Equatable, Encodable {
    public enum Kind: String, Sendable, Encodable { case added, removed, changed }
    public var kind: Kind
    /// `o`, `c`, `b=AS`, `a=setup`, `a=direction`, `a=candidate`, ...
    public var field: String
    public var removed: [String]
    public var added: [String]

    /// Groups lines by field; a field with one line on each side that differ is a change,
    /// otherwise the lines only one side has are removed or added.
    static func compare(_ old: [String], _ new: [String]) -> [SDPLineChange] {
        var fields: [String] = []
        var oldByField: [String: [String]] = [:], newByField: [String: [String]] = [:]
        for line in old {
            let key = SDPDiffLines.field(of: line)
            if oldByField[key] == nil { fields.append(key) }
            oldByField[key, default: []].append(line)
        }
        for line in new {
            let key = SDPDiffLines.field(of: line)
            if oldByField[key] == nil && newByField[key] == nil { fields.append(key) }
            newByField[key, default: []].append(line)
        }
        var changes: [SDPLineChange] = []
        for field in fields {
            let before = oldByField[field] ?? [], after = newByField[field] ?? []
            let (removed, added) = SDPDiffLines.multisetDifference(before, after)
            guard !removed.isEmpty || !added.isEmpty else { continue }
            if before.count == 1 && after.count == 1 {
                changes.append(SDPLineChange(kind: .changed, field: field, removed: removed, added: added))
            } else {
                if !removed.isEmpty { changes.append(SDPLineChange(kind: .removed, field: field, removed: removed, added: [])) }
                if !added.isEmpty { changes.append(SDPLineChange(kind: .added, field: field, removed: [], added: added)) }
            }
        }
        return changes
    }
}

/// One m-line's differences. A section only one side has is `added` or `removed` whole.
public struct SDPMediaDiff: Sendable, Equatable, Encodable {
    public enum Status: String, Sendable, Encodable { case changed, added, removed }
    /// 0-based position of the m-line.
    public var index: Int
    public var kind: String
    public var status: Status
    /// The m= line itself, when it differs: port, protocol or format list.
    public var mLine: SDPLineChange?
    /// What changed in the m= line, in words (`port 49170 → 9`, `formats 111 0 → 0 111`).
    public var mLineDetails: [String]
    public var codecs: [SDPCodecChange]
    public var lines: [SDPLineChange]

    var isEmpty: Bool { status == .changed && mLine == nil && codecs.isEmpty && lines.isEmpty }

    init(index: Int, old: MediaDescription?, new: MediaDescription?) {
        self.index = index
        kind = (new ?? old)?.kind ?? ""
        status = old == nil ? .added : new == nil ? .removed : .changed
        let oldLines = old.map(SDPDiffLines.section) ?? [], newLines = new.map(SDPDiffLines.section) ?? []
        mLineDetails = []
        if oldLines.first != newLines.first {
            mLine = SDPLineChange(kind: old == nil ? .added : new == nil ? .removed : .changed, field: "m",
                                  removed: oldLines.prefix(1).map { $0 }, added: newLines.prefix(1).map { $0 })
            if let old, let new {
                if old.portText != new.portText || old.portCountText != new.portCountText { mLineDetails.append("port \(old.portText) → \(new.portText)") }
                if old.proto != new.proto { mLineDetails.append("protocol \(old.proto) → \(new.proto)") }
                if old.formats != new.formats { mLineDetails.append("formats \(old.formats.joined(separator: " ")) → \(new.formats.joined(separator: " "))") }
            }
        }
        let oldCodecs = old.map(SDPDiffCodec.codecs) ?? [], newCodecs = new.map(SDPDiffCodec.codecs) ?? []
        codecs = SDPCodecChange.compare(oldCodecs, newCodecs)
        let owned = { (codecs: [SDPDiffCodec]) in Set(codecs.flatMap(\.lines)) }
        let rest = { (lines: [String], codecs: [SDPDiffCodec]) in Array(lines.dropFirst()).filter { !owned(codecs).contains($0) } }
        self.lines = SDPLineChange.compare(rest(oldLines, oldCodecs), rest(newLines, newCodecs))
    }

    var removedLines: [String] { (mLine?.removed ?? []) + codecs.flatMap(\.removed) + lines.flatMap(\.removed) }
    var addedLines: [String] { (mLine?.added ?? []) + codecs.flatMap(\.added) + lines.flatMap(\.added) }
}

/// A codec added, removed, or changed (renumbered, other fmtp or rtcp-fb).
public struct SDPCodecChange: Sendable, Equatable, Encodable {
    public var kind: SDPLineChange.Kind
    /// `opus/48000/2`
    public var codec: String
    public var oldPayloadType: Int?
    public var newPayloadType: Int?
    /// What changed, in words (`payload type 111 → 105`, `fmtp minptime=10 → minptime=10;usedtx=1`).
    public var details: [String]
    public var removed: [String]
    public var added: [String]

    static func compare(_ old: [SDPDiffCodec], _ new: [SDPDiffCodec]) -> [SDPCodecChange] {
        var unmatchedOld = Array(old.indices), unmatchedNew = Array(new.indices)
        var pairs: [(Int, Int)] = []
        // Closest matches first: same payload type, then same fmtp, then a name found once on each side.
        let passes: [(SDPDiffCodec, SDPDiffCodec) -> Bool] = [
            { $0.codec.payloadType == $1.codec.payloadType },
            { $0.codec.parameters == $1.codec.parameters },
        ]
        for sameAs in passes {
            for i in unmatchedOld {
                guard let j = unmatchedNew.first(where: { old[i].name == new[$0].name && sameAs(old[i], new[$0]) }) else { continue }
                pairs.append((i, j))
                unmatchedOld.removeAll { $0 == i }
                unmatchedNew.removeAll { $0 == j }
            }
        }
        for i in unmatchedOld where unmatchedOld.filter({ old[$0].name == old[i].name }).count == 1 {
            let candidates = unmatchedNew.filter { new[$0].name == old[i].name }
            guard candidates.count == 1, let j = candidates.first else { continue }
            pairs.append((i, j))
            unmatchedOld.removeAll { $0 == i }
            unmatchedNew.removeAll { $0 == j }
        }
        var changes: [SDPCodecChange] = []
        for (i, j) in pairs.sorted(by: { $0.0 < $1.0 }) {
            let (removed, added) = SDPDiffLines.multisetDifference(old[i].lines, new[j].lines)
            var details: [String] = []
            let a = old[i].codec, b = new[j].codec
            if a.payloadType != b.payloadType { details.append("payload type \(a.payloadType) → \(b.payloadType)") }
            if a.parameters != b.parameters { details.append("fmtp \(a.parameters ?? "(none)") → \(b.parameters ?? "(none)")") }
            let (lostFeedback, gainedFeedback) = SDPDiffLines.multisetDifference(old[i].feedback, new[j].feedback)
            details += lostFeedback.map { "rtcp-fb \($0) removed" } + gainedFeedback.map { "rtcp-fb \($0) added" }
            guard !removed.isEmpty || !added.isEmpty || !details.isEmpty else { continue }
            if details.isEmpty { details.append("lines rewritten") }
            changes.append(SDPCodecChange(kind: .changed, codec: a.label, oldPayloadType: a.payloadType, newPayloadType: b.payloadType,
                                          details: details, removed: removed, added: added))
        }
        // A line both a removed and an added codec hold (one payload type, two codecs) did not change.
        let (removedLines, addedLines) = SDPDiffLines.multisetDifference(unmatchedOld.flatMap { old[$0].lines }, unmatchedNew.flatMap { new[$0].lines })
        var removedPool = removedLines, addedPool = addedLines
        func take(_ lines: [String], from pool: inout [String]) -> [String] {
            lines.filter { line in
                guard let index = pool.firstIndex(of: line) else { return false }
                pool.remove(at: index)
                return true
            }
        }
        for i in unmatchedOld {
            changes.append(SDPCodecChange(kind: .removed, codec: old[i].label, oldPayloadType: old[i].codec.payloadType, newPayloadType: nil,
                                          details: [], removed: take(old[i].lines, from: &removedPool), added: []))
        }
        for j in unmatchedNew {
            changes.append(SDPCodecChange(kind: .added, codec: new[j].label, oldPayloadType: nil, newPayloadType: new[j].codec.payloadType,
                                          details: [], removed: [], added: take(new[j].lines, from: &addedPool)))
        }
        return changes
    }
}

/// A codec of one section with the lines that describe it (rtpmap, fmtp, rtcp-fb).
struct SDPDiffCodec {
    let codec: Codec
    let lines: [String]
    let feedback: [String]

    /// Name, clock rate and channel count, so `telephone-event/8000/1` and `telephone-event/8000` match.
    var name: String { "\(codec.name.lowercased())/\(codec.clockRate)/\(codec.channelCount)" }
    var label: String { codec.label }

    static func codecs(of section: MediaDescription) -> [SDPDiffCodec] {
        section.codecs.map { codec in
            let format = String(codec.payloadType)
            let own = section.attributes.filter { $0.describedFormat == format }
            let feedback = own.filter { $0.name == RTCPFeedback.attributeName }.compactMap { attribute in
                attribute.value.map { String($0.dropFirst(format.count)).trimmingPrefix(" ") }
            }
            return SDPDiffCodec(codec: codec, lines: own.map { "a=" + $0.text }, feedback: feedback.map(String.init))
        }
    }
}

enum SDPDiffLines {
    static let directions: Set<String> = ["sendrecv", "sendonly", "recvonly", "inactive"]

    /// The session part of the document, as lines.
    static func session(_ sdp: SessionDescription) -> [String] {
        var head = sdp
        head.media = []
        return SDPSerializer.lines(of: head)
    }

    /// One m-section, as lines; the m= line first.
    static func section(_ media: MediaDescription) -> [String] {
        var document = SessionDescription(origin: Origin(sessionId: "0"), timing: [], media: [media])
        document.attributes = []
        let all = SDPSerializer.lines(of: document)
        return Array(all.drop { !$0.hasPrefix("m=") })
    }

    /// What a line is about: its type letter, `b=TYPE`, or `a=NAME` (the four direction
    /// attributes count as one field, so sendrecv → recvonly reads as a change).
    static func field(of line: String) -> String {
        guard line.hasPrefix("a=") else {
            if line.hasPrefix("b="), let colon = line.firstIndex(of: ":") { return String(line[..<colon]) }
            return String(line.prefix(1))
        }
        let name = String(line.dropFirst(2).prefix { $0 != ":" })
        return directions.contains(name) ? "a=direction" : "a=" + name
    }

    /// Lines only `old` has and lines only `new` has, counting repeats, in their own order.
    static func multisetDifference(_ old: [String], _ new: [String]) -> (removed: [String], added: [String]) {
        var counts: [String: Int] = [:]
        for line in new { counts[line, default: 0] += 1 }
        var removed: [String] = []
        for line in old {
            if let count = counts[line], count > 0 { counts[line] = count - 1 } else { removed.append(line) }
        }
        var remaining: [String: Int] = [:]
        for line in old { remaining[line, default: 0] += 1 }
        var added: [String] = []
        for line in new {
            if let count = remaining[line], count > 0 { remaining[line] = count - 1 } else { added.append(line) }
        }
        return (removed, added)
    }
}

extension SDPDiff {
    /// The diff with ICE passwords, SDES keys and k= keys replaced by `<redacted>`; a changed
    /// secret still shows as a change.
    public func redacted() -> SDPDiff {
        var copy = self
        func clean(_ change: inout SDPLineChange) {
            change.removed = change.removed.map(SessionDescription.redactedLine)
            change.added = change.added.map(SessionDescription.redactedLine)
        }
        for index in copy.session.indices { clean(&copy.session[index]) }
        for m in copy.media.indices {
            for index in copy.media[m].lines.indices { clean(&copy.media[m].lines[index]) }
        }
        return copy
    }
}
