/// One header field as received or as we built it.
package struct SIPHeader: Sendable, Equatable {
    /// The name as written: a compact form stays compact (`v`), capitalisation is kept.
    package let writtenName: String
    /// Made once here: every lookup compares it, and making one lowers the name's case.
    package let name: SIPHeaderName
    /// The value with continuation lines joined by one space and the ends trimmed (RFC 3261 §7.3.1).
    package let value: String
    /// Where the field starts in the message it came from (the start line is 1); 0 when built.
    package let line: Int
    /// The field's bytes as received, continuation lines and line ends included, so a message
    /// passed on unchanged is written byte for byte as it came.
    let raw: [UInt8]?

    package init(_ name: SIPHeaderName, _ value: String) {
        writtenName = name.canonical
        self.name = name
        self.value = value
        line = 0
        raw = nil
    }

    init(writtenName: String, value: String, line: Int, raw: [UInt8]) {
        self.writtenName = writtenName
        name = SIPHeaderName(writtenName)
        self.value = value
        self.line = line
        self.raw = raw
    }

    /// The field as it goes on the wire.
    var bytes: [UInt8] { raw ?? Array("\(writtenName): \(value)\r\n".utf8) }

    /// The comma-separated values of a field whose grammar is a list (Via, Contact, Route…);
    /// commas inside quoted strings and angle brackets do not separate.
    package var values: [String] { SIPValueScanner.splitList(value) }
}
