/// Custom header fields on our INVITE, and the peer's `X-` fields on theirs (docs/sip.md,
/// "Caller id and custom headers").
package enum SIPCustomHeaders {
    /// What the stack writes on an INVITE, or what routes and authenticates it: a custom header
    /// that replaced or repeated one of these would break the transaction, the dialog or the
    /// digest, so none may be set. Compact forms (`f`, `v`…) are the same names.
    package static let reserved: [SIPHeaderName] = [
        .via, .from, .to, .callID, .cseq, .contact, .contentLength, .contentType, .maxForwards, .route, .recordRoute,
        .authorization, .proxyAuthorization, .wwwAuthenticate, .proxyAuthenticate, .allow, .userAgent, .assertedIdentity,
    ]

    /// The headers as fields, each checked: the name a token and not one the stack owns, the
    /// value without line breaks or control characters (a tab is allowed, as in any field).
    package static func fields(_ headers: [CustomHeader]) throws(SIPHeaderError) -> [SIPHeader] {
        var fields: [SIPHeader] = []
        for header in headers {
            guard SIPValueScanner.isToken(header.name) else { throw .badName(header.name) }
            let name = SIPHeaderName(header.name)
            guard !reserved.contains(name) else { throw .reserved(name.canonical) }
            guard !hasControlCharacter(header.value) else { throw .badValue(name: header.name) }
            fields.append(SIPHeader(name, header.value.trimmingSpaces))
        }
        return fields
    }

    /// The `X-` fields of a received message, as written and in order, for the calls' news as
    /// Verto's custom headers are.
    package static func extensions(of message: SIPMessage) -> [CustomHeader] {
        message.headers.compactMap { header in
            header.writtenName.lowercased().hasPrefix("x-") ? CustomHeader(name: header.writtenName, value: header.value) : nil
        }
    }

    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\t" && ($0.value < 0x20 || $0.value == 0x7F) }
    }
}

extension SIPHeaderName {
    /// RFC 3325: the identity a trusted network asserts for the caller.
    package static let assertedIdentity: SIPHeaderName = "P-Asserted-Identity"
}

extension String {
    /// Leading and trailing spaces and tabs off, as a parser takes them off a field's value.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
