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

extension MediaDescription {
    /// `m-line 2 (video)`, for messages.
    func label(index: Int) -> String { "m-line \(index + 1) (\(kind))" }

    /// Index just after the last attribute that describes a format (rtpmap, fmtp, rtcp-fb),
    /// where new format attributes belong; the end of the list when there is none.
    var formatAttributesEnd: Int {
        let names: Set<String> = [RTPMap.attributeName, FormatParameters.attributeName, RTCPFeedback.attributeName]
        guard let last = attributes.lastIndex(where: { names.contains($0.name) }) else { return attributes.count }
        return last + 1
    }
}
