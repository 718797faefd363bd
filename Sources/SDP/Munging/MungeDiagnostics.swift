/// A munging request that cannot be carried out (bad codec name, payload type out of range, ...).
public struct MungeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Something munging did differently from what was asked, or that the user should know.
public struct MungeWarning: Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Attribute {
    /// The format (payload type) an rtpmap, fmtp or rtcp-fb line describes; nil for other lines.
    var describedFormat: String? {
        guard Self.formatAttributeNames.contains(name), let value else { return nil }
        return Lexer.splitFirst(value, at: Lexer.space).0
    }

    static let formatAttributeNames: Set<String> = [RTPMap.attributeName, FormatParameters.attributeName, RTCPFeedback.attributeName]
}

extension MediaDescription {
    /// `m-line 2 (video)`, for messages.
    func label(index: Int) -> String { "m-line \(index + 1) (\(kind))" }

    /// Index just after the last attribute that describes a format (rtpmap, fmtp, rtcp-fb),
    /// where new format attributes belong; the end of the list when there is none.
    var formatAttributesEnd: Int {
        guard let last = attributes.lastIndex(where: { Attribute.formatAttributeNames.contains($0.name) }) else { return attributes.count }
        return last + 1
    }
}
