import CNice

/// Just enough STUN (RFC 5389) and TURN (RFC 5766) to ask a TURN server why it refused us, and
/// to build the Binding requests that probe a selected pair (RFC 8445 §7.1.2, RFC 7675).
struct STUNMessage {
    static let magicCookie: UInt32 = 0x2112_A442
    static let binding: UInt16 = 0x0001
    static let allocate: UInt16 = 0x0003
    static let refresh: UInt16 = 0x0004

    enum Attribute: UInt16 {
        case username = 0x0006
        case messageIntegrity = 0x0008
        case errorCode = 0x0009
        case lifetime = 0x000D
        case realm = 0x0014
        case nonce = 0x0015
        case requestedTransport = 0x0019
        case priority = 0x0024
        case fingerprint = 0x8028
        case iceControlled = 0x8029
        case iceControlling = 0x802A
    }

    /// FINGERPRINT is the CRC-32 of the message before it, XORed with this (RFC 5389 §15.5).
    private static let fingerprintXOR: UInt32 = 0x5354_554E

    var type: UInt16
    var transactionID: [UInt8]
    var attributes: [(UInt16, [UInt8])] = []

    static func request(_ method: UInt16) -> STUNMessage {
        var generator = SystemRandomNumberGenerator()
        return STUNMessage(type: method, transactionID: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    var isSuccess: Bool { type & 0x0110 == 0x0100 }
    var isError: Bool { type & 0x0110 == 0x0110 }

    func attribute(_ attribute: Attribute) -> [UInt8]? {
        attributes.first { $0.0 == attribute.rawValue }?.1
    }

    /// The error code (e.g. 401) and reason phrase of an error response.
    var error: (code: Int, reason: String)? {
        guard let value = attribute(.errorCode), value.count >= 4 else { return nil }
        let code = Int(value[2] & 0x07) * 100 + Int(value[3])
        return (code, String(decoding: value[4...].prefix(128), as: UTF8.self))
    }

    /// The wire form; with `key`, a MESSAGE-INTEGRITY attribute follows the attributes (RFC 5389
    /// §15.4), and with `fingerprint` a FINGERPRINT ends the message (§15.5). Padding bytes may
    /// be anything; `padding` chooses them (test vectors use spaces).
    func encoded(integrityKey key: [UInt8]? = nil, fingerprint: Bool = false, padding: UInt8 = 0) -> [UInt8] {
        var body: [UInt8] = []
        for (type, value) in attributes {
            body.append(contentsOf: Self.bigEndian(type) + Self.bigEndian(UInt16(value.count)) + value)
            body.append(contentsOf: [UInt8](repeating: padding, count: (4 - value.count % 4) % 4))
        }
        // Each trailer is computed with the length field counting up to its own end.
        let integrityLength = key == nil ? 0 : 24
        var message = Self.bigEndian(type) + Self.bigEndian(UInt16(body.count + integrityLength))
        message += Self.bigEndian(Self.magicCookie) + transactionID + body
        if let key {
            message += Self.bigEndian(Attribute.messageIntegrity.rawValue) + Self.bigEndian(UInt16(20)) + Digest.hmacSHA1(key: key, message: message)
        }
        if fingerprint {
            let length = Self.bigEndian(UInt16(message.count - 20 + 8))
            message[2] = length[0]
            message[3] = length[1]
            let crc = CRC32.checksum(message) ^ Self.fingerprintXOR
            message += Self.bigEndian(Attribute.fingerprint.rawValue) + Self.bigEndian(UInt16(4)) + Self.bigEndian(crc)
        }
        return message
    }

    static func decode(_ bytes: [UInt8]) -> STUNMessage? {
        guard bytes.count >= 20, bytes[0] & 0xC0 == 0 else { return nil }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 20 + length else { return nil }
        var message = STUNMessage(type: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), transactionID: Array(bytes[8..<20]))
        var offset = 20
        while offset + 4 <= 20 + length {
            let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let size = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard offset + 4 + size <= 20 + length else { return nil }
            message.attributes.append((type, Array(bytes[(offset + 4)..<(offset + 4 + size)])))
            offset += 4 + size + (4 - size % 4) % 4
        }
        return message
    }

    static func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
}

/// MD5 and HMAC-SHA1 from GLib, for the long-term credential key (RFC 5389 §15.4).
enum Digest {
    static func md5(_ bytes: [UInt8]) -> [UInt8] {
        let checksum = g_checksum_new(G_CHECKSUM_MD5)
        defer { g_checksum_free(checksum) }
        g_checksum_update(checksum, bytes, gssize(bytes.count))
        var digest = [UInt8](repeating: 0, count: 16)
        var length = gsize(digest.count)
        g_checksum_get_digest(checksum, &digest, &length)
        return digest
    }

    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let hmac = g_hmac_new(G_CHECKSUM_SHA1, key, gsize(key.count))
        defer { g_hmac_unref(hmac) }
        g_hmac_update(hmac, message, gssize(message.count))
        var digest = [UInt8](repeating: 0, count: 20)
        var length = gsize(digest.count)
        g_hmac_get_digest(hmac, &digest, &length)
        return digest
    }
}
