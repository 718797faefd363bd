/// `CSeq: 1*DIGIT LWS Method` (RFC 3261 §20.16); the number is below 2**31 (§8.1.1.5).
package struct SIPCSeq: Sendable, Equatable, CustomStringConvertible {
    package var number: UInt32
    package var method: String

    package init(number: UInt32, method: String) {
        self.number = number
        self.method = method
    }

    package init(parsing value: String, line: Int = 0) throws(SIPParseError) {
        var scanner = SIPValueScanner(value, line: line, field: "CSeq")
        scanner.skipWhitespace()
        guard let digits = scanner.run(while: { (0x30...0x39).contains($0) }) else { throw scanner.error("no sequence number") }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 10, let number = UInt32(significant.isEmpty ? "0" : significant), number < 1 << 31 else {
            throw scanner.error("the sequence number is not below 2**31")
        }
        scanner.skipWhitespace()
        guard let method = scanner.token() else { throw scanner.error("no method") }
        try scanner.expectEnd()
        self.number = number
        self.method = method
    }

    package var description: String { "\(number) \(method)" }
}
