import Foundation
import Parley

/// The live line of `parley load` on a terminal: calls up, done and failed, calls attempted and
/// their rate, setup p50/p95 so far, and the loss and jitter of the calls up now (read once a
/// second).
struct LoadProgress {
    let run: LoadRun
    let presenter: CallPresenter

    func show() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            let counts = await run.counts
            let setup = await run.setupSoFar
            var lost = 0
            var jitter = 0.0
            var measured = 0
            for call in await run.liveCalls {
                guard let audio = await call.statistics().audio, audio.packetsReceived > 0 else { continue }
                lost += audio.packetsLost
                jitter += audio.jitterMs
                measured += 1
            }
            let rate = await run.attemptRate
            var text = String(format: "up %d, done %d, failed %d, attempted %d of %d (%.1f/s)", counts.up, counts.done, counts.failed,
                              counts.attempted, await run.total, rate)
            text += setup.count > 0 ? ", setup p50 \(setup.percentile(50)) ms p95 \(setup.percentile(95)) ms" : ", setup -"
            text += String(format: ", lost %d, jitter %.1f ms", lost, measured > 0 ? jitter / Double(measured) : 0)
            presenter.showStatus(text)
        }
    }
}
