import Foundation
import Parley

/// `parley answer --report-first-audio`: the moment a call first plays audible sound from the
/// peer (a decoded frame with a level above zero), for setup-time benchmarks that compare it
/// with the caller's `dialing` event. Polls every 5 ms for at most 30 s, then gives up.
enum FirstAudioWatch {
    struct Payload: Encodable {
        let call: String
        let packetsReceived: Int
    }

    static func report(_ call: Call) async {
        let deadline = ContinuousClock.now + .seconds(30)
        while !Task.isCancelled, ContinuousClock.now < deadline {
            if let audio = await call.statistics().audio, audio.audioLevel > 0 {
                JSONEvents.emit("first-audio", Payload(call: call.id, packetsReceived: audio.packetsReceived))
                return
            }
            if await call.state.isDone { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
