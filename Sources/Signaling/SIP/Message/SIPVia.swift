/// One Via value (RFC 3261 §20.42, §18.2.1; RFC 3581 rport):
/// `SIP/2.0/UDP host:port;branch=z9hG4bK…;rport;received=…;maddr=…`.
package struct SIPVia: Sendable, Equatable, CustomStringConvertible {
    /// Upper case: UDP, TCP, TLS, SCTP, WS, WSS or any other token.
    package var transport: String
    package var host: String
    package var port: Int?
    package var parameters: SIPParameters

    /// The magic cookie that marks a branch as RFC 3261's, unique per transaction (§8.1.1.7).
    package static let branchCookie = "z9hG4bK"

    package init(transport: String, host: String, port: Int?, branch: String, rport: Bool = true) {
        self.transport = transport.uppercased()
        self.host = host
        self.port = port
        parameters = SIPParameters()
        parameters.append("branch", branch)
        if rport { parameters.append("rport", nil) }
    }

    /// Reads `sent-protocol LWS sent-by *( SEMI via-params )`; whitespace is allowed around
    /// the slashes and the colon, as RFC 3261's SLASH and COLON allow.
    package init(parsing value: String, line: Int = 0) throws(SIPParseError) {
        var scanner = SIPValueScanner(value, line: line, field: "Via")
        scanner.skipWhitespace()
        let name = scanner.token()
        let slash = scanner.consume(0x2F)
        scanner.skipWhitespace()
        let version = scanner.token()
        guard name?.uppercased() == "SIP", slash, version == "2.0", scanner.consume(0x2F) else {
            throw scanner.error("the protocol is not SIP/2.0/transport")
        }
        scanner.skipWhitespace()
        guard let transport = scanner.token() else { throw scanner.error("no transport") }
        self.transport = transport.uppercased()
        scanner.skipWhitespace()
        if scanner.peek == 0x5B {
            guard let address = scanner.run(while: { $0 != 0x5D }), scanner.consume(0x5D) else { throw scanner.error("an IPv6 reference is not closed") }
            host = address + "]"
        } else {
            guard let name = scanner.run(while: { SIPValueScanner.isTokenByte($0) && $0 != 0x25 }) else { throw scanner.error("no host") }
            host = name
        }
        if scanner.consume(0x3A) {
            scanner.skipWhitespace()
            guard let digits = scanner.run(while: { (0x30...0x39).contains($0) }), digits.count <= 5, let number = Int(digits), number <= 65_535 else {
                throw scanner.error("the port is not a number from 0 to 65535")
            }
            port = number
        }
        parameters = try scanner.parameters()
        try scanner.expectEnd()
        if let rport = parameters.items.first(where: { $0.name.lowercased() == "rport" })?.value {
            guard let number = Int(rport), (0...65_535).contains(number) else { throw scanner.error("rport is not a port") }
        }
        if let ttl = parameters["ttl"] {
            guard let number = Int(ttl), (0...255).contains(number) else { throw scanner.error("ttl is not from 0 to 255") }
        }
    }

    package var branch: String? { parameters["branch"] }
    package var received: String? { parameters["received"] }
    package var maddr: String? { parameters["maddr"] }
    /// `;rport` asked for (RFC 3581), with or without the port the server filled in.
    package var asksForRPort: Bool { parameters.contains("rport") }
    package var rport: Int? { parameters["rport"].flatMap { Int($0) } }
    /// The branch starts with the RFC 3261 cookie, so it alone names the transaction.
    package var hasRFC3261Branch: Bool { branch?.hasPrefix(Self.branchCookie) == true }
    package var isReliable: Bool { transport != "UDP" }

    package var description: String {
        "SIP/2.0/\(transport) \(host)\(port.map { ":\($0)" } ?? "")\(parameters)"
    }
}
