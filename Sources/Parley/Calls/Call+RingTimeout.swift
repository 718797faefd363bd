import Signaling

/// An outgoing call nobody answers ends on our side after its ring timeout (`DialOptions.ringTimeout`,
/// 60 s by default, as the browser SDKs do), with the cause a switch gives it: NO_ANSWER (19),
/// sent to the server in our bye (docs/calls.md, "Ending").
extension Call {
    func startRingTimer(_ timeout: Duration?) {
        guard let timeout, timeout > .zero, timers.ring == nil else { return }
        // Unstructured: a timer the call cancels when it is answered or ends first.
        timers.startRing(Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.ringTimerFired(after: timeout)
        })
    }

    private func ringTimerFired(after timeout: Duration) async {
        guard machine.awaitsAnswer else { return }
        logger.warning("call \(id): not answered within \(timeout); ending it no-answer")
        let cause = HangupCause.noAnswer
        await end(TerminationReason(cause, localStatus: .noAnswer), failure: nil, notifyServer: true, cause: cause)
    }
}
