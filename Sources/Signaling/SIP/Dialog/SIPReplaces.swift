/// The Replaces header field (RFC 3891): the dialog an INVITE takes the place of, named by its
/// Call-ID and tags, as attended transfer sends it (docs/sip.md, "Transfer and forward"). The
/// tags are as the sender of the INVITE sees the replaced dialog: `to-tag` is the local tag of
/// the UA that receives it, `from-tag` its remote tag.
package struct SIPReplaces: Sendable, Equatable {
    package let callID: String
    package let toTag: String
    package let fromTag: String
    /// `early-only`: replace only a dialog not answered yet.
    package let earlyOnly: Bool

    package init(callID: String, toTag: String, fromTag: String, earlyOnly: Bool = false) {
        self.callID = callID
        self.toTag = toTag
        self.fromTag = fromTag
        self.earlyOnly = earlyOnly
    }

    /// `callid;to-tag=T;from-tag=F[;early-only]`, parameters in any order, others passed over;
    /// nil without a Call-ID or either tag, or with a character a Call-ID or tag cannot hold.
    package init?(parsing value: String) {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        guard let first = parts.first, !first.isEmpty, first.count <= 256, first.allSatisfy(Self.isWordCharacter) else { return nil }
        var tags: [String: String] = [:]
        var earlyOnly = false
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(Self.trimmed)
            guard let name = pair.first?.lowercased() else { return nil }
            if name == "early-only", pair.count == 1 { earlyOnly = true }
            if pair.count == 2, pair[1].count <= 128, pair[1].allSatisfy(Self.isWordCharacter) { tags[name] = pair[1] }
        }
        guard let toTag = tags["to-tag"], let fromTag = tags["from-tag"] else { return nil }
        self.init(callID: String(first), toTag: toTag, fromTag: fromTag, earlyOnly: earlyOnly)
    }

    /// The field's value.
    package var value: String {
        "\(callID);to-tag=\(toTag);from-tag=\(fromTag)" + (earlyOnly ? ";early-only" : "")
    }

    package static let header: SIPHeaderName = "Replaces"
    package static let option = "replaces"

    private static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
    }

    /// RFC 3261's `word` (a Call-ID, one side of its `@`) and its `token` (a tag).
    private static func isWordCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let byte = character.asciiValue, byte > 0x20, byte < 0x7F else { return false }
        return !"\"#,;<>\\^`{|}".contains(character)
    }
}
