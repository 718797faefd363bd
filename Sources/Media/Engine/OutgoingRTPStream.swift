/// The RTP numbering of what a session sends: the sequence number (one per packet written), the
/// timestamp (one frame's span per frame, sent or not) and the marker that starts a talkspurt
/// (RFC 3551 §4.1: the first packet, and the first after frames that sent nothing).
///
/// A value the session keeps under its clock lock.
struct OutgoingRTPStream {
    private(set) var sequenceNumber: UInt16
    private(set) var timestamp: UInt32
    private var sentMedia = false
    private var skippedFrame = false

    /// Random starting points (RFC 3550 §5.1) unless given.
    init(sequenceNumber: UInt16 = .random(in: 0...UInt16.max), timestamp: UInt32 = .random(in: 0...UInt32.max)) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
    }

    /// The next media packet starts a talkspurt.
    var marksTalkspurt: Bool { !sentMedia || skippedFrame }

    /// A frame that sent nothing (paused, or DTX): the next media packet carries the marker.
    mutating func skippedAFrame() {
        skippedFrame = true
    }

    /// A media packet was written with `marksTalkspurt`.
    mutating func wroteMedia() {
        sentMedia = true
        skippedFrame = false
    }

    /// A packet (media or telephone event) takes the next sequence number.
    mutating func wrotePacket() {
        sequenceNumber &+= 1
    }

    /// A frame's span of the clock went by, whatever was sent for it.
    mutating func frameElapsed(timestampUnits: Int) {
        timestamp &+= UInt32(truncatingIfNeeded: timestampUnits)
    }
}
