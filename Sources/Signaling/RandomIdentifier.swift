import Foundation

/// A random (version 4) UUID drawn from the system generator, getrandom(2), which needs no file
/// descriptor. Foundation's `UUID()` reads /dev/urandom here, and at the process's descriptor
/// limit it returns the same all-zero UUID every time: every request then shared one id, each
/// reply resumed the last waiter and the others waited forever.
package enum RandomIdentifier {
    package static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40 // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80 // RFC 9562 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }

    /// `length` random letters and digits: SIP tags, branches, Call-IDs and `.invalid` host names.
    package static func token(length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
