import CoreMetrics
import Switch

/// `parley switch --metrics`: logins, calls and sessions from the switch's activity; the
/// relayed messages are counted where the switch sends them (SwitchCore).
enum SwitchMetrics {
    static func record(_ activity: SwitchActivity) {
        switch activity {
        case .loggedIn:
            Counter(label: "parley_switch_logins_total", dimensions: [("result", "accepted")]).increment()
            Meter(label: "parley_switch_sessions").increment()
        case .loginRefused:
            Counter(label: "parley_switch_logins_total", dimensions: [("result", "refused")]).increment()
        case .disconnected:
            Meter(label: "parley_switch_sessions").decrement()
        case .callRouted:
            Counter(label: "parley_switch_calls_total").increment()
            Meter(label: "parley_switch_calls_active").increment()
        case .callEnded:
            Meter(label: "parley_switch_calls_active").decrement()
        case .callTransferred(_, _, let forwarded):
            // The switch lets go of a transferred call; the party sent on calls again (callRouted).
            Counter(label: "parley_switch_transfers_total", dimensions: [("kind", forwarded ? "forward" : "transfer")]).increment()
            Meter(label: "parley_switch_calls_active").decrement()
        case .callRated(let rated):
            Counter(label: "parley_switch_call_ratings_total", dimensions: [("rating", "\(rated.rating)"), ("issue", rated.issue)]).increment()
        case .callAnswered, .callsReattached, .loginTakesOver:
            break
        }
    }
}
