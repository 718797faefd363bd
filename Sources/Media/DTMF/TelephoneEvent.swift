/// A DTMF digit and its RFC 4733 event code (0-9, * = 10, # = 11, A-D = 12-15).
package struct DTMFDigit: Sendable, Equatable, Hashable, CustomStringConvertible {
    package let event: UInt8

    package init?(_ character: Character) {
        switch character {
        case "0"..."9": event = UInt8(character.asciiValue! - 48)
        case "*": event = 10
        case "#": event = 11
        case "A"..."D": event = 10 + UInt8(character.asciiValue! - 63)
        case "a"..."d": event = 10 + UInt8(character.asciiValue! - 95)
        default: return nil
        }
    }

    package init?(event: UInt8) {
        guard event <= 15 else { return nil }
        self.event = event
    }

    package var character: Character { Character(Unicode.Scalar(Array("0123456789*#ABCD".utf8)[Int(event)])) }
    package var description: String { String(character) }

    /// Row and column frequencies of the tone pair (ITU-T Q.23).
    package var frequencies: (low: Double, high: Double) {
        let rows: [Double] = [697, 770, 852, 941]
        let columns: [Double] = [1209, 1336, 1477, 1633]
        let layout: [UInt8] = [1, 2, 3, 12, 4, 5, 6, 13, 7, 8, 9, 14, 10, 0, 11, 15]
        let position = layout.firstIndex(of: event)!
        return (rows[position / 4], columns[position % 4])
    }
}

/// The 4-byte telephone-event payload (RFC 4733 §2.3).
package struct TelephoneEvent: Sendable, Equatable {
    package var event: UInt8
    package var isEnd: Bool
    /// Power level in -dBm0, 0...63.
    package var volume: UInt8
    /// In RTP timestamp units since the event's start.
    package var duration: UInt16

    package init(event: UInt8, isEnd: Bool, volume: UInt8, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.volume = volume
        self.duration = duration
    }

    package static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPError) -> TelephoneEvent {
        guard payload.count >= 4 else { throw .truncated(length: payload.count, needed: 4) }
        return TelephoneEvent(event: payload[0], isEnd: payload[1] & 0x80 != 0, volume: payload[1] & 0x3F, duration: payload.uint16(at: 2))
    }

    package func write(into payload: UnsafeMutableRawBufferPointer) {
        payload[0] = event
        payload[1] = (isEnd ? 0x80 : 0) | (volume & 0x3F)
        payload.put(duration, at: 2)
    }
}

/// Turns queued digits into telephone-event packets, one per frame time: a first packet with the
/// marker bit, updates with growing duration, then three copies of the end packet (RFC 4733 §2.5.1.4).
/// The queue is fixed-size; stepping allocates nothing.
package final class DTMFSender {
    package struct Packet: Sendable, Equatable {
        package var event: TelephoneEvent
        package var marker: Bool
        /// The RTP timestamp of the event's start, shared by all its packets.
        package var timestamp: UInt32
    }

    package static let endPacketCopies = 3
    package let clockRate: Int
    package var durationMilliseconds: Int
    package var gapMilliseconds: Int
    package var volume: UInt8

    private var queue = [UInt8](repeating: 0, count: 64)
    private var head = 0
    private var count = 0
    private var current: (event: UInt8, start: UInt32, elapsed: Int, endsSent: Int)?
    private var gapRemaining = 0

    package init(clockRate: Int, durationMilliseconds: Int = 100, gapMilliseconds: Int = 60, volume: UInt8 = 10) {
        self.clockRate = clockRate
        self.durationMilliseconds = durationMilliseconds
        self.gapMilliseconds = gapMilliseconds
        self.volume = volume
    }

    /// Queues digits; returns false (queuing nothing) when one is not a DTMF digit or the queue is full.
    @discardableResult
    package func enqueue(_ digits: String) -> Bool {
        let events = digits.compactMap { DTMFDigit($0)?.event }
        guard events.count == digits.count, count + events.count <= queue.count else { return false }
        for event in events {
            queue[(head + count) % queue.count] = event
            count += 1
        }
        return true
    }

    package var isIdle: Bool { current == nil && count == 0 }
    var isSending: Bool { current != nil }

    /// Advances one frame of `frameSamples`. Returns the packet to send in place of audio, or nil
    /// when audio should be sent for this frame. `timestamp` is the frame's RTP timestamp.
    package func step(timestamp: UInt32, frameSamples: Int) -> Packet? {
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
package struct DTMFReceiver: Sendable {
    private var lastTimestamp: UInt32?

    package init() {}

    /// The digit when this packet starts an event not reported before.
    package mutating func receive(_ event: TelephoneEvent, timestamp: UInt32) -> DTMFDigit? {
        guard let digit = DTMFDigit(event: event.event), timestamp != lastTimestamp else { return nil }
        lastTimestamp = timestamp
        return digit
    }
}
