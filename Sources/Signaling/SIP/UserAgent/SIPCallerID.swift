/// Who our INVITE says is calling, and who theirs says (docs/sip.md, "Caller id and custom
/// headers").
///
/// The caller name is the From display name, quoted with `"` and `\` escaped (RFC 3261 §25.1).
/// The caller number does not replace From's user: that is the account the proxy authenticates,
/// and a proxy that checks the From user against the digest user name (Kamailio's
/// `auth_check` with its URI check, as in deploy/kamailio/kamailio.cfg) refuses any other with
/// 403. The number goes in P-Asserted-Identity (RFC 3325) instead, where SIP trunks take the
/// number to present from an authenticated customer, and a proxy that does not trust us removes it.
package struct SIPCallerID: Sendable, Equatable {
    package var name: String?
    package var number: String?

    /// Empty strings are "not given".
    package init(name: String?, number: String?) {
        self.name = name.flatMap { $0.isEmpty ? nil : $0 }
        self.number = number.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Refuses what cannot be written: a control character in either, a number of spaces.
    package func check() throws(SIPHeaderError) {
        if let name, SIPCustomHeaders.hasControlCharacter(name) { throw .badCallerName }
        if let number, SIPCustomHeaders.hasControlCharacter(number) || number.trimmingSpaces.isEmpty { throw .badCallerNumber }
    }

    /// P-Asserted-Identity for the number, `sip:NUMBER@domain`, with `user=phone` when the
    /// number is a telephone number (RFC 3261 §19.1.1); nil without a number.
    package func assertedIdentity(domain: String) throws(SIPHeaderError) -> SIPHeader? {
        try check()
        guard let number = number?.trimmingSpaces else { return nil }
        let digits = number.hasPrefix("+") ? number.dropFirst() : Substring(number)
        let isTelephone = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
        let parameters = isTelephone ? ";user=phone" : ""
        let address = SIPNameAddress(displayName: name, uri: "sip:\(Self.escapedUser(number))@\(domain)\(parameters)")
        return SIPHeader(.assertedIdentity, address.description)
    }

    /// The caller an INVITE names: From's display name (else the asserted identity's), and the
    /// asserted identity's user (a network vouched for it) else From's.
    package init(of invite: SIPMessage) {
        let from = try? invite.from()
        let asserted = invite.header(.assertedIdentity).flatMap { $0.values.first }.flatMap { try? SIPNameAddress(parsing: $0) }
        self.init(name: from?.displayName ?? asserted?.displayName,
                  number: asserted.flatMap(Self.user) ?? from.flatMap(Self.user))
    }

    /// The user of a sip:/sips: URI, unescaped, or a tel: URI's number.
    private static func user(of address: SIPNameAddress) -> String? {
        if address.uri.lowercased().hasPrefix("tel:") {
            return address.uri.dropFirst(4).split(separator: ";", maxSplits: 1).first.map(String.init)
        }
        return (try? address.sipURI())?.decodedUser
    }

    /// RFC 3261 §25.1 `user`: unreserved and user-unreserved characters as they are, every
    /// other byte %-escaped.
    static func escapedUser(_ user: String) -> String {
        var out = ""
        for byte in user.utf8 {
            if isUserByte(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    private static func isUserByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "-_.!~*'()&=+$,;?/".utf8.contains(byte)
        }
    }
}
