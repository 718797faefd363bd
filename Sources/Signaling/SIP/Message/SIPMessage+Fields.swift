/// The header fields the transaction and dialog layers read, parsed on demand. Each throws a
/// `SIPParseError` at the field's line when the field is missing, repeated or malformed.
extension SIPMessage {
    /// What RFC 3261 §8.1.1 makes every request and response carry: one Call-ID, CSeq, From
    /// and To, at least one Via; a request's CSeq names its method; Max-Forwards, when present,
    /// is 0 to 255.
    package func validate() throws(SIPParseError) {
        _ = try callID()
        let sequence = try cseq()
        _ = try from()
        _ = try to()
        _ = try topVia()
        if let method, sequence.method != method {
            throw SIPParseError(.mismatchedHeader, line: header(.cseq)?.line ?? 0, "CSeq names \(sequence.method.prefix(32)), the request is \(method.prefix(32))")
        }
        _ = try maxForwards()
    }

    package func callID() throws(SIPParseError) -> String {
        let header = try required(.callID)
        guard !header.value.isEmpty, !header.value.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
            throw SIPParseError(.badValue, line: header.line, "Call-ID: empty or with whitespace")
        }
        return header.value
    }

    package func cseq() throws(SIPParseError) -> SIPCSeq {
        let header = try required(.cseq)
        return try SIPCSeq(parsing: header.value, line: header.line)
    }

    package func from() throws(SIPParseError) -> SIPNameAddress {
        let header = try required(.from)
        return try SIPNameAddress(parsing: header.value, line: header.line, field: "From")
    }

    package func to() throws(SIPParseError) -> SIPNameAddress {
        let header = try required(.to)
        return try SIPNameAddress(parsing: header.value, line: header.line, field: "To")
    }

    /// Every Via value, top first.
    package func vias() throws(SIPParseError) -> [SIPVia] {
        var vias: [SIPVia] = []
        for (value, line) in values(.via) { vias.append(try SIPVia(parsing: value, line: line)) }
        return vias
    }

    package func topVia() throws(SIPParseError) -> SIPVia {
        guard let (value, line) = values(.via).first else { throw SIPParseError(.missingHeader, line: 0, "no Via") }
        return try SIPVia(parsing: value, line: line)
    }

    /// Contact values; nil for `Contact: *` (a REGISTER removing every binding).
    package func contacts() throws(SIPParseError) -> [SIPNameAddress]? {
        let all = values(.contact)
        if all.count == 1, all[0].value == "*" { return nil }
        var contacts: [SIPNameAddress] = []
        for (value, line) in all { contacts.append(try SIPNameAddress(parsing: value, line: line, field: "Contact")) }
        return contacts
    }

    /// Route or Record-Route values in order.
    package func routes(_ name: SIPHeaderName) throws(SIPParseError) -> [SIPNameAddress] {
        var routes: [SIPNameAddress] = []
        for (value, line) in values(name) { routes.append(try SIPNameAddress(parsing: value, line: line, field: name.canonical)) }
        return routes
    }

    /// Max-Forwards (0 to 255), nil when absent.
    package func maxForwards() throws(SIPParseError) -> Int? {
        guard let header = try single(.maxForwards) else { return nil }
        let digits = header.value.drop { $0 == "0" }
        guard !header.value.isEmpty, header.value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), digits.count <= 3,
              let hops = digits.isEmpty ? 0 : Int(digits), hops <= 255 else {
            throw SIPParseError(.badValue, line: header.line, "Max-Forwards: not a number from 0 to 255")
        }
        return hops
    }

    /// Expires in seconds, nil when absent (RFC 3261 §20.19: delta-seconds, at most 2**32-1).
    package func expires() throws(SIPParseError) -> UInt32? {
        guard let header = try single(.expires) else { return nil }
        let digits = header.value.drop { $0 == "0" }
        guard header.value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), !header.value.isEmpty, digits.count <= 10,
              let seconds = UInt32(digits.isEmpty ? "0" : digits) else {
            throw SIPParseError(.badValue, line: header.line, "Expires: not a number of seconds below 2**32")
        }
        return seconds
    }

    /// The field that must appear exactly once.
    private func required(_ name: SIPHeaderName) throws(SIPParseError) -> SIPHeader {
        guard let header = try single(name) else { throw SIPParseError(.missingHeader, line: 0, "no \(name.canonical)") }
        return header
    }

    /// The field that may appear at most once.
    private func single(_ name: SIPHeaderName) throws(SIPParseError) -> SIPHeader? {
        let all = headers(name)
        guard all.count <= 1 else {
            throw SIPParseError(.repeatedHeader, line: all[1].line, "a second \(name.canonical) (the first is on line \(all[0].line))")
        }
        return all.first
    }
}
