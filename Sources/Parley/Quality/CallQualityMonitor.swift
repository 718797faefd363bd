import Locking
import Media
import Signaling

/// One call's quality, fed a statistics snapshot at each stats tick (never per packet): the
/// E-model's MOS over the recent loss and delay, the warnings, and the running figures of the
/// call record. Pure: the caller supplies the time, so tests replay any history.
public struct CallQualityMonitor: Sendable {
    /// What one tick produced.
    public struct Update: Sendable, Equatable {
        /// nil until audio has arrived: the model needs a received stream to rate.
        public var mos: Double?
        public var quality: CallQuality?
        /// Loss of the stream we receive over the last `lossWindow`, percent.
        public var lossPercent: Double?
        public var changes: [QualityWarningChange]
    }

    /// Where the call is, as far as the warnings care.
    public struct Activity: Sendable, Equatable {
        /// Both sides send (active, not held): silence from the far end is news.
        public var expectsAudio: Bool
        /// Our source feeds the stream (active, not held, not muted).
        public var sendsSource: Bool

        public init(expectsAudio: Bool, sendsSource: Bool) {
            self.expectsAudio = expectsAudio
            self.sendsSource = sendsSource
        }
    }

    public static let lossWindow: Duration = .seconds(5)
    /// Levels closer than this are "the same": a live microphone never holds this still.
    static let levelTolerance = 1e-4

    public private(set) var warnings = QualityWarnings()
    public private(set) var summary = QualitySummary()

    private struct Count { var time: Duration; var lost: Int; var received: Int }
    private var window: [Count] = []
    private var lastReceived = 0
    private var lastArrival: Duration?
    private var level: (value: Double, since: Duration)?

    public init() {}

    public mutating func update(_ audio: MediaStatistics, at time: Duration, activity: Activity) -> Update {
        let loss = windowedLoss(audio, at: time)
        let oneWayDelay = (audio.rttMs ?? 0) / 2 + audio.jitterBufferDelayMs
        let model = EModel(codec: .forCodec(audio.codec, fec: audio.fecNegotiated))
        let mos = audio.packetsReceived > 0 ? model.mos(lossPercent: loss ?? 0, oneWayDelayMs: oneWayDelay) : nil
        summary.add(audio, mos: mos)

        var changes: [QualityWarningChange] = []
        func observe(_ warning: QualityWarning, _ value: Double?) {
            if let change = warnings.observe(warning, value) { changes.append(change) }
        }
        observe(.highRTT, audio.rttMs)
        observe(.highJitter, audio.packetsReceived > 0 ? audio.jitterMs : nil)
        observe(.highPacketLoss, loss)
        observe(.lowMOS, mos)
        observe(.constantAudioInputLevel, steadyLevelSeconds(audio.localAudioLevel, at: time, sending: activity.sendsSource))
        observe(.noAudioReceived, silenceSeconds(audio.packetsReceived, at: time, expecting: activity.expectsAudio))
        summary.warningsRaised = warnings.raisedHistory
        return Update(mos: mos, quality: mos.map(CallQuality.init(mos:)), lossPercent: loss, changes: changes)
    }

    /// Loss over the last `lossWindow`: lost / (lost + received) of the packets in it.
    private mutating func windowedLoss(_ audio: MediaStatistics, at time: Duration) -> Double? {
        window.append(Count(time: time, lost: audio.packetsLost, received: audio.packetsReceived))
        // Keep one count at or before the window's start, as its base.
        while window.count > 1, time - window[1].time >= Self.lossWindow { window.removeFirst() }
        guard let first = window.first, let last = window.last else { return nil }
        let lost = max(0, last.lost - first.lost)
        let received = max(0, last.received - first.received)
        guard lost + received > 0 else { return nil }
        return 100 * Double(lost) / Double(lost + received)
    }

    /// Seconds the source has held one level; 0 when it moved; nil while it does not feed the call.
    private mutating func steadyLevelSeconds(_ value: Double, at time: Duration, sending: Bool) -> Double? {
        guard sending else {
            level = nil
            return nil
        }
        if let level, abs(level.value - value) < Self.levelTolerance { return (time - level.since).inSeconds }
        level = (value, time)
        return 0
    }

    /// Seconds since a packet last arrived while the call expects audio; 0 when not expecting.
    private mutating func silenceSeconds(_ received: Int, at time: Duration, expecting: Bool) -> Double {
        defer { lastReceived = received }
        guard expecting else {
            lastArrival = nil
            return 0
        }
        if received != lastReceived || lastArrival == nil { lastArrival = time }
        return (time - (lastArrival ?? time)).inSeconds
    }
}
