/// Why a caller id or a custom header cannot go into our INVITE (docs/sip.md, "Caller id and
/// custom headers"). Checked before anything is sent; names the header but never quotes a value.
package enum SIPHeaderError: Error, Equatable, CustomStringConvertible {
    /// The name is not an RFC 3261 token (letters, digits and - . ! % * _ + ` ' ~).
    case badName(String)
    /// The value holds a line break or another control character.
    case badValue(name: String)
    /// The stack writes this header itself (Via, From, To, Call-ID, CSeq, Contact…).
    case reserved(String)
    /// The caller name holds a line break or another control character.
    case badCallerName
    /// The caller number is empty of anything but spaces, or holds a control character.
    case badCallerNumber

    package var description: String {
        switch self {
        case .badName(let name):
            "the header name \"\(name.prefix(60))\" is not a SIP token: letters, digits and - . ! % * _ + ` ' ~ only"
        case .badValue(let name):
            "the value of header \(name) must not hold line breaks or other control characters"
        case .reserved(let name):
            "header \(name) is written by the SIP stack and cannot be set (custom headers may not replace "
                + SIPCustomHeaders.reserved.map(\.canonical).joined(separator: ", ") + ")"
        case .badCallerName:
            "the caller name must not hold line breaks or other control characters"
        case .badCallerNumber:
            "the caller number must be a non-empty user part without control characters"
        }
    }
}
