/// The RTP payload types (7 bits, 0...127) seen so far, in two words: checked on every packet,
/// so it must cost a mask and a compare, and never allocate.
struct PayloadTypeSet: Sendable, Equatable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Adds the payload type; true when it was not there before.
    mutating func insert(_ payloadType: UInt8) -> Bool {
        let type = payloadType & 0x7F
        let bit = UInt64(1) << UInt64(type & 0x3F)
        if type < 64 {
            guard low & bit == 0 else { return false }
            low |= bit
        } else {
            guard high & bit == 0 else { return false }
            high |= bit
        }
        return true
    }

    func contains(_ payloadType: UInt8) -> Bool {
        let type = payloadType & 0x7F
        let bit = UInt64(1) << UInt64(type & 0x3F)
        return (type < 64 ? low : high) & bit != 0
    }
}
