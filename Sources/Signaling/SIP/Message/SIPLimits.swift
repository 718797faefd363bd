/// The most a received SIP message may hold. Each limit is checked before the part it bounds is
/// read, so a hostile peer costs at most these many bytes and header fields of work.
package struct SIPLimits: Sendable, Equatable {
    /// Start line, header fields and body together. A UDP datagram cannot exceed 65,535 bytes.
    package var maximumMessageSize = 65_535
    /// Header fields (a folded field counts once; a field with several values counts once).
    package var maximumHeaderCount = 128
    /// One header field with its continuation lines, or the start line.
    package var maximumLineLength = 8_192
    /// The body, as Content-Length declares it (checked before the body is awaited on a stream).
    package var maximumBodySize = 32_768

    package init() {}

    package init(maximumMessageSize: Int, maximumHeaderCount: Int, maximumLineLength: Int, maximumBodySize: Int) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumLineLength = maximumLineLength
        self.maximumBodySize = maximumBodySize
    }
}
