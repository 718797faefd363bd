import Foundation
import Parley

/// What `parley call` and `parley answer` do once a call is answered: send `--dtmf`, and hang up
/// after `--duration`.
enum AnsweredCall {
    static func start(_ call: Call, dtmf: String?, duration: Duration?, presenter: CallPresenter, stop: LocalStop? = nil) async {
        if let dtmf {
            do throws(ParleyError) {
                try await call.sendDTMF(dtmf)
                presenter.sent(call.id, digits: dtmf)
            } catch { presenter.error(error, call: call.id) }
        }
        if let duration {
            // Unstructured: the --duration deadline, started from a synchronous setup; it ends with the call.
            Task {
                try? await Task.sleep(for: duration)
                stop?.record(String(format: "--duration %g s ran out", duration.inSeconds))
                await call.hangup()
            }
        }
    }
}
