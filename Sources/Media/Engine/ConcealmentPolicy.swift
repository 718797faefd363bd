/// What a tick's playout does with each step the jitter buffer hands it: decode a frame, rebuild
/// or conceal a lost one, stretch the last audio over an underrun for a few frames, or play
/// silence. One policy for both kinds of session: one that decodes and one that only counts
/// its playout (`MediaSessionConfiguration.decodesAudio` false), so that their statistics read
/// alike.
///
/// A value the session keeps and steps on its clock thread, under its clock lock.
struct ConcealmentPolicy {
    enum Decision: Equatable {
        /// A frame arrived: decode its `length` bytes.
        case decode(length: Int)
        /// The frame is missing: rebuild it from the next packet's redundancy when `nextLength`
        /// names one (Opus FEC), else conceal it.
        case recover(nextLength: Int?)
        /// Nothing to play yet: make up a frame from the last audio.
        case stretch
        /// Nothing to play, and nothing worth stretching: silence for the rest of the tick.
        case silence
    }

    /// How many frames in a row an underrun is stretched over before playout goes silent.
    static let stretchedFramesAtMost = 10

    /// A frame was ever played: before that there is nothing to stretch.
    private(set) var everPlayed = false
    private(set) var stretchedInARow = 0

    mutating func decide(_ step: MediaReceiver.PlayoutStep) -> Decision {
        switch step {
        case .frame(let length):
            everPlayed = true
            stretchedInARow = 0
            return .decode(length: length)
        case .lost(let nextLength):
            return .recover(nextLength: nextLength)
        case .buffering:
            guard everPlayed, stretchedInARow < Self.stretchedFramesAtMost else { return .silence }
            stretchedInARow += 1
            return .stretch
        }
    }
}
