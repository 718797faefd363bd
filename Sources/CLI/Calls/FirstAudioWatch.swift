import Foundation
import Parley

/// `parley answer --report-first-audio`: the moment a call first plays audible sound from the
/// peer (a decoded frame with a level above zero), for setup-time benchmarks that compare it
/// with the caller's `dialing` event. The media session reports that frame once (the call is
/// answered with `MediaOptions.watchesFirstAudible`) and the event carries the time it was
/// played; nothing is reported when it came more than 30 s after the watch began, or never.
enum FirstAudioWatch {
    struct Payload: Encodable {
        let call: String
        let packetsReceived: Int
    }

    static func report(_ call: Call) async {
        let started = ContinuousClock.now
        guard let sound = await call.firstAudibleSound(), sound.at - started <= .seconds(30) else { return }
        let age = ContinuousClock.now - sound.at
        let played = Date().addingTimeInterval(-(Double(age.components.seconds) + Double(age.components.attoseconds) * 1e-18))
        JSONEvents.emit("first-audio", Payload(call: call.id, packetsReceived: sound.packetsReceived), at: played)
    }
}
