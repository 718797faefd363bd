import ICE
import Parley

/// The values inside the events tests wait for, so a wait that matched the wrong case fails
/// (`try #require(event.incomingCall)`) instead of passing silently.
extension VoiceClientEvent {
    var incomingCall: IncomingCall? {
        if case .incomingCall(let incoming) = self { return incoming }
        return nil
    }
}

extension CallEvent {
    var selectedPair: ICESelectedPair? {
        if case .selectedPair(let pair) = self { return pair }
        return nil
    }

    var endReason: TerminationReason? {
        if case .state(.done(let reason)) = self { return reason }
        return nil
    }
}
