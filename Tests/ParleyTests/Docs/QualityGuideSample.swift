import Parley

// The sample in docs/calls.md, "Call quality", compiled here so the guide cannot rot.
// docs-sample:begin
/// Watches a call's quality until it ends and returns its record.
func watchQuality(of call: Call) async -> CallRecord {
    var monitor = CallQualityMonitor()
    let start = ContinuousClock.now
    while !(await call.state.isDone) {
        try? await Task.sleep(for: .milliseconds(500))
        guard let audio = await call.statistics().audio else { continue }
        let active = await call.state == .active
        let muted = await call.isMuted
        let update = monitor.update(audio, at: ContinuousClock.now - start,
                                    activity: .init(expectsAudio: active, sendsSource: active && !muted))
        if let mos = update.mos, let quality = update.quality { print("MOS \(mos) \(quality)") }
        for change in update.changes { print(change.raised ? "warning" : "cleared", change.warning.rawValue, change.value) }
    }
    let reason = await call.waitUntilDone()
    return CallRecord(timeline: await call.timeline, summary: monitor.summary, recoveries: 0, termination: reason)
}
// docs-sample:end
