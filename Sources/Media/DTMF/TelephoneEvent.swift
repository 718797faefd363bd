/// A DTMF digit and its RFC 4733 event code (0-9, * = 10, # = 11, A-D = 12-15).
public struct DTMFDigit: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let event: UInt8

    public init?(_ character: Character) {
        switch character {
        case "0"..."9": event = UInt8(character.asciiValue! - 48)
        case "*": event = 10
        case "#": event = 11
        case "A"..."D": event = 10 + UInt8(character.asciiValue! - 63)
        case "a"..."d": event = 10 + UInt8(character.asciiValue! - 95)
        default: return nil
        }
    }

    public init?(event: UInt8) {
        guard event <= 15 else { return nil }
        self.event = event
    }

    public var character: Character { Character(Unicode.Scalar(Array("0123456789*#ABCD".utf8)[Int(event)])) }
    public var description: String { String(character) }

    /// Row and column frequencies of the tone pair (ITU-T Q.23).
    public var frequencies: (low: Double, high: Double) {
        let rows: [Double] = [697, 770, 852, 941]
        let columns: [Double] = [1209, 1336, 1477, 1633]
        let layout: [UInt8] = [1, 2, 3, 12, 4, 5, 6, 13, 7, 8, 9, 14, 10, 0, 11, 15]
        let position = layout.firstIndex(of: event)!
        return (rows[position / 4], columns[position % 4])
    }
}

/// The 4-byte telephone-event payload (RFC 4733 §2.3).
public struct TelephoneEvent: Sendable, Equatable {
    public var event: UInt8
    public var isEnd: Bool
    /// Power level in -dBm0, 0...63.
    public var volume: UInt8
    /// In RTP timestamp units since the event's start.
    public var duration: UInt16

    public init(event: UInt8, isEnd: Bool, volume: UInt8, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.volume = volume
        self.duration = duration
    }

    public static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPError) -> TelephoneEvent {
        guard payload.count >= 4 else { throw .truncated(length: payload.count, needed: 4) }
        return TelephoneEvent(event: payload[0], isEnd: payload[1] & 0x80 != 0, volume: payload[1] & 0x3F, duration: payload.uint16(at: 2))
    }

    public func write(into payload: UnsafeMutableRawBufferPointer) {
        payload[0] = event
        payload[1] = (isEnd ? 0x80 : 0) | (volume & 0x3F)
        payload.put(duration, at: 2)
    }
}

/// Turns queued digits into telephone-event packets, one per frame time: a first packet with the
/// marker bit, updates with growing duration, then three copies of the end packet (RFC 4733 §2.5.1.4).
/// The queue is fixed-size; stepping allocates nothing.
public final class DTMFSender {
    public struct Packet: Sendable, Equatable {
        public var event: TelephoneEvent
        public var marker: Bool
        /// The RTP timestamp of the event's start, shared by all its packets.
        public var timestamp: UInt32
    }

    public static let endPacketCopies = 3
    public let clockRate: Int
    public var durationMilliseconds: Int
    public var gapMilliseconds: Int
    public var volume: UInt8

    private var queue = [UInt8](repeating: 0, count: 64)
    private var head = 0
    private var count = 0
    private var current: (event: UInt8, start: UInt32, elapsed: Int, endsSent: Int)?
    private var gapRemaining = 0

    public init(clockRate: Int, durationMilliseconds: Int = 100, gapMilliseconds: Int = 60, volume: UInt8 = 10) {
        self.clockRate = clockRate
        self.durationMilliseconds = durationMilliseconds
        self.gapMilliseconds = gapMilliseconds
        self.volume = volume
    }

    /// Queues digits; returns false (queuing nothing) when one is not a DTMF digit or the queue is full.
    @discardableResult
    public func enqueue(_ digits: String) -> Bool {
        let events = digits.compactMap { DTMFDigit($0)?.event }
        guard events.count == digits.count, count + events.count <= queue.count else { return false }
        for event in events {
            queue[(head + count) % queue.count] = event
            count += 1
        }
        return true
    }

    public var isIdle: Bool { current == nil && count == 0 }
    public var isSending: Bool { current != nil }

    /// Advances one frame of `frameSamples`. Returns the packet to send in place of audio, or nil
    /// when audio should be sent for this frame. `timestamp` is the frame's RTP timestamp.
    public func step(timestamp: UInt32, frameSamples: Int) -> Packet? {
        if current == nil {
            if gapRemaining > 0 {
                gapRemaining -= frameSamples
                return nil
            }
            guard count > 0 else { return nil }
            current = (queue[head], timestamp, 0, 0)
            head = (head + 1) % queue.count
            count -= 1
        }
        guard var tone = current else { return nil }
        let total = max(frameSamples, durationMilliseconds * clockRate / 1000)
        let isFirst = tone.elapsed == 0
        if tone.elapsed < total { tone.elapsed = min(total, tone.elapsed + frameSamples) }
        let ended = tone.elapsed >= total
        if ended { tone.endsSent += 1 }
        let packet = Packet(
            event: TelephoneEvent(event: tone.event, isEnd: ended, volume: volume, duration: UInt16(min(tone.elapsed, Int(UInt16.max)))),
            marker: isFirst, timestamp: tone.start)
        if tone.endsSent >= Self.endPacketCopies {
            current = nil
            gapRemaining = gapMilliseconds * clockRate / 1000
        } else {
            current = tone
        }
        return packet
    }
}

/// Reports each received telephone event once, however many packets (and end copies) carry it.
public struct DTMFReceiver: Sendable {
    private var lastTimestamp: UInt32?

    public init() {}

    /// The digit when this packet starts an event not reported before.
    public mutating func receive(_ event: TelephoneEvent, timestamp: UInt32) -> DTMFDigit? {
        guard let digit = DTMFDigit(event: event.event), timestamp != lastTimestamp else { return nil }
        lastTimestamp = timestamp
        return digit
    }
}
