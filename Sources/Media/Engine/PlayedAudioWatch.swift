/// What a session listens for in the audio it plays: its first audible frame (when the
/// configuration asks, `watchesFirstAudible`), and digits sent as tones (`runsInBandDTMFDetector`)
/// until the far end shows it sends RFC 4733 events, which may leave the tones in its audio too:
/// no digit may arrive twice.
///
/// A value the session keeps under its clock lock; it allocates nothing per frame.
struct PlayedAudioWatch {
    struct Heard: Equatable {
        /// This frame is the first with a level above zero.
        var firstAudible = false
        var digit: DTMFDigit?
    }

    private var watchingFirstAudible: Bool
    private var inBandDetector: InBandDTMFDetector?

    /// `inBandDigitsAt`: the sample rate to detect tones at; nil detects none.
    init(watchesFirstAudible: Bool, inBandDigitsAt sampleRate: Int?) {
        watchingFirstAudible = watchesFirstAudible
        inBandDetector = sampleRate.map { InBandDTMFDetector(sampleRate: $0) }
    }

    var detectsInBandDigits: Bool { inBandDetector != nil }

    /// From the first RFC 4733 event on, tones are not digits.
    mutating func telephoneEventsArrived() {
        inBandDetector = nil
    }

    /// One tick of the audio played.
    mutating func listen(to played: UnsafeBufferPointer<Int16>) -> Heard {
        var heard = Heard()
        if watchingFirstAudible, played.contains(where: { $0 != 0 }) {
            watchingFirstAudible = false
            heard.firstAudible = true
        }
        heard.digit = inBandDetector?.process(played)
        return heard
    }
}
