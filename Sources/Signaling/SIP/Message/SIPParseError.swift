/// Why bytes from the network are not a SIP message, or why one of its header fields cannot be
/// read. `line` counts from 1 at the start line (0: the message as a whole, such as its size).
///
/// The reason names header fields and what is wrong with them, never their values: a value may
/// be a credential (`Authorization`), and the error may be logged.
package struct SIPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        /// A limit of `SIPLimits` was passed; checked before the part is read.
        case messageTooLarge, headerLineTooLong, tooManyHeaders, bodyTooLarge
        case badStartLine, unsupportedVersion, badHeaderField
        /// Content-Length is not one non-negative number, or promises more than arrived.
        case badContentLength
        /// A header field every request or response needs is missing, repeated, or disagrees
        /// with another (CSeq's method and the request's).
        case missingHeader, repeatedHeader, mismatchedHeader
        /// A header field's value does not follow its grammar (RFC 3261 §25.1).
        case badValue
        /// A stream ended, or a datagram was cut, before the message did.
        case incomplete
    }

    package let kind: Kind
    package let line: Int
    package let reason: String

    package init(_ kind: Kind, line: Int, _ reason: String) {
        self.kind = kind
        self.line = line
        self.reason = reason
    }

    package var description: String {
        line > 0 ? "malformed SIP message at line \(line): \(reason)" : "malformed SIP message: \(reason)"
    }
}
