/// Something the parser accepted although RFC 8866 or RFC 8839 would not, because real stacks
/// send it and no meaning is lost (docs/sdp.md, "What the parser tolerates").
public struct SDPParseWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Codable {
        /// A line outside RFC 8866's order (Janus writes session `c=` after `t=`).
        case lineOutOfOrder
        /// Lines end with both CRLF and LF (desk phones that build SDP from several buffers).
        case mixedLineEndings
        /// Empty lines after the last line (a SIP body padded with an extra CRLF).
        case trailingEmptyLines
        /// An `a=ice-ufrag` with characters RFC 8839 leaves out, such as `_` (libwebrtc).
        case iceCharacters
    }

    /// 1-based line number of the first line concerned.
    public let line: Int
    public let kind: Kind
    /// What was tolerated, for a person. Never quotes a line's value.
    public let message: String

    public init(line: Int, kind: Kind, message: String) {
        self.line = line
        self.kind = kind
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
