import Foundation

/// A key press a peer sends in SIP INFO instead of RTP (RFC 4733): the `application/dtmf-relay`
/// body many phones send (`Signal=5`, `Duration=160`) and the `application/dtmf` one (the digit
/// alone). We send the first kind for a far end without telephone-event (`--dtmf-mode info`).
enum SIPInfoDTMF {
    enum Failure: Error, Equatable {
        /// A body of another type: the request is answered 415 with the types we take.
        case unsupportedType
        /// The body names no key we know: answered 400.
        case badSignal
    }

    static let acceptedTypes = "application/dtmf-relay, application/dtmf"

    /// The key `body` carries, or nil for an INFO without a body (a keep-alive, answered 200).
    static func digit(contentType: String?, body: [UInt8]) throws(Failure) -> Character? {
        guard !body.isEmpty else { return nil }
        let type = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let text = String(decoding: body, as: UTF8.self)
        let signal: String
        switch type {
        case "application/dtmf-relay":
            let field = text.split(whereSeparator: \.isNewline).first { line in
                line.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() == "signal"
            }
            guard let field, let value = field.split(separator: "=", maxSplits: 1).last else { throw .badSignal }
            signal = value.trimmingCharacters(in: .whitespaces)
        case "application/dtmf":
            signal = text.trimmingCharacters(in: .whitespacesAndNewlines)
        default:
            throw .unsupportedType
        }
        return try key(signal)
    }

    /// The `application/dtmf-relay` body we send for `digit` (a 160 ms press).
    static func body(for digit: Character) -> String {
        "Signal=\(digit)\r\nDuration=160\r\n"
    }

    /// A key's character, or its RFC 4733 event number (10 is `*`, 11 is `#`, 12-15 are A-D).
    private static func key(_ signal: String) throws(Failure) -> Character {
        if let number = Int(signal), (0...15).contains(number) {
            return Array("0123456789*#ABCD")[number]
        }
        guard signal.count == 1, let character = signal.uppercased().first, "0123456789*#ABCD".contains(character) else {
            throw .badSignal
        }
        return character
    }
}
