/// Why a session description was rejected, and where.
public struct SDPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Codable {
        case emptyDocument
        case documentTooLarge
        case lineTooLong
        case tooManyMediaSections
        case tooManyAttributes
        case invalidUTF8
        case forbiddenCharacter
        case emptyLine
        case mixedLineEndings
        case malformedLine
        case unknownLineType
        case lineOutOfOrder
        case duplicateLine
        case missingLine
        case invalidVersion
        case invalidOrigin
        case invalidConnection
        case invalidBandwidth
        case invalidTiming
        case invalidMedia
        case invalidAttribute
    }

    /// 1-based line number; 0 when the problem is the document as a whole (e.g. its size).
    public let line: Int
    public let kind: Kind
    /// What is wrong, for a person. Never quotes a secret (ice-pwd, crypto keys, k=).
    public let reason: String

    public init(line: Int, kind: Kind, reason: String) {
        self.line = line
        self.kind = kind
        self.reason = reason
    }

    public var description: String {
        line > 0 ? "line \(line): \(reason)" : reason
    }
}

/// Size and count limits that stop abusive input before it costs memory or time.
public struct SDPLimits: Sendable, Equatable {
    public var maxDocumentBytes: Int
    public var maxLineBytes: Int
    public var maxMediaSections: Int
    public var maxAttributes: Int

    public init(maxDocumentBytes: Int = 128 * 1024, maxLineBytes: Int = 4096, maxMediaSections: Int = 64, maxAttributes: Int = 4096) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxLineBytes = maxLineBytes
        self.maxMediaSections = maxMediaSections
        self.maxAttributes = maxAttributes
    }

    public static let `default` = SDPLimits()
}
