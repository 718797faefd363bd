import Drivers
import Foundation
import Locking
import Parley

/// What `parley call` and `parley answer` do once a call is answered: show what was negotiated,
/// send `--dtmf`, and hang up after `--duration`.
enum AnsweredCall {
    static func configure(_ driver: inout CallDriver, dtmf: String?, duration: Duration?, presenter: CallPresenter, stop: LocalStop? = nil) {
        let call = driver.call
        driver.whenActive = {
            presenter.negotiated(call.id, await call.statistics())
            guard let dtmf else { return }
            do throws(ParleyError) {
                try await call.sendDTMF(dtmf)
                presenter.sent(call.id, digits: dtmf)
            } catch { presenter.error(error, call: call.id) }
        }
        if let duration {
            driver.hangUp(after: duration) { stop?.record(String(format: "--duration %g s ran out", duration.inSeconds)) }
        }
    }
}
