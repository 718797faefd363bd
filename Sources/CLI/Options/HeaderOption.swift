import ArgumentParser
import Parley

/// `--header NAME=VALUE`, checked before it goes into an INVITE: the name is an RFC 7230
/// token, the value has no line breaks or other control characters that could forge headers.
enum HeaderOption {
    private static let tokenPunctuation = Set("!#$%&'*+-.^_`|~")

    static func parse(_ text: String) throws -> CustomHeader {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw ValidationError("--header must be NAME=VALUE, got \"\(text.prefix(60))\"")
        }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || tokenPunctuation.contains($0) }) else {
            throw ValidationError("--header name \"\(name.prefix(60))\" must be letters, digits and ! # $ % & ' * + - . ^ _ ` | ~ only")
        }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw ValidationError("--header \(name): the value must not hold line breaks or other control characters")
        }
        return CustomHeader(name: name, value: value)
    }
}
