import Foundation
import Parley

/// The steps that listen to the far end (`wait`, `expect`) and the one that presses keys
/// (`send`): what a bot needs to follow or test someone else's IVR.
extension BotRun {
    func wait(for wait: BotWait, named name: String) async -> StepResult {
        if let hearing = wait.hearing {
            switch await hear(hearing, within: wait.timeout) {
            case .matched(let target): return .go(target ?? wait.next)
            case .missed:
                logger.debug("bot wait timed out", metadata: ["call": .string(call.callID), "step": .string(name)])
                return .go(wait.onTimeout)
            case .ended: return .end(.callerHungUp)
            case .cancelled: return .end(await fail(.cancelled))
            case .failed(let reason): return .end(await fail(.expectationFailed(step: name, reason: reason)))
            }
        }
        switch await listen(for: wait.sound, within: wait.timeout) {
        case .heard: return .go(wait.next)
        case .timedOut:
            logger.debug("bot wait timed out", metadata: ["call": .string(call.callID), "step": .string(name)])
            return .go(wait.onTimeout)
        case .ended: return .end(.callerHungUp)
        case .cancelled: return .end(await fail(.cancelled))
        }
    }

    func expect(_ expectation: BotExpectation, named name: String) async -> StepResult {
        let within = BotDurations.seconds(expectation.within)
        switch expectation.event {
        case .heard(let hearing):
            switch await hear(hearing, within: expectation.within) {
            case .matched: return .go(expectation.next)
            case .missed(let heard): return await missed(hearing, within: expectation.within, step: name, heard: heard)
            case .ended(let heard):
                let cause = await call.endCause()
                return .end(.failed(.expectationFailed(step: name, reason: "expected \(hearing) within \(within); the call ended (\(cause)) first; \(heard.description)")))
            case .cancelled: return .end(await fail(.cancelled))
            case .failed(let reason): return .end(await fail(.expectationFailed(step: name, reason: reason)))
            }
        case .sound(let sound):
            switch await listen(for: sound, within: expectation.within) {
            case .heard: return .go(expectation.next)
            case .timedOut: return .end(await fail(.expectationFailed(step: name, reason: "expected \(sound) within \(within); none came")))
            case .ended:
                let cause = await call.endCause()
                return .end(.failed(.expectationFailed(step: name, reason: "expected \(sound) within \(within); the call ended (\(cause)) first")))
            case .cancelled: return .end(await fail(.cancelled))
            }
        case .callEnd(let wanted):
            // Nothing to hear: the wait ends at the deadline or when the call does.
            _ = await inbox.beginListening()
            switch await inbox.nextSound(before: .now + expectation.within) {
            case .ended:
                let cause = await call.endCause()
                if let wanted, cause != wanted {
                    return .end(.failed(.expectationFailed(step: name, reason: "expected the call to end with \(wanted); it ended with \(cause)")))
                }
                return .go(expectation.next)
            case .heard, .timedOut:
                return .end(await fail(.expectationFailed(step: name, reason: "expected \(expectation.event) within \(within); the call is still up")))
            case .cancelled: return .end(await fail(.cancelled))
            }
        }
    }

    func send(_ digits: String, next: BotTarget) async -> StepResult {
        do {
            try await call.sendDigits(digits)
        } catch {
            return .end(await fail(.sendFailed("\(error)")))
        }
        return .go(next)
    }

    /// Listens for `sound` until it comes, `timeout` passes or the call ends.
    private func listen(for sound: BotSound, within timeout: Duration) async -> DigitInbox.SoundEvent {
        let deadline = ContinuousClock.now + timeout
        let step = await inbox.beginListening()
        let inbox = self.inbox
        // Unstructured: `listen`'s callback runs on the media clock thread, which must not wait for the inbox.
        call.listen(for: sound) { Task { await inbox.hear(step) } }
        let event = await inbox.nextSound(before: deadline)
        call.stopListening()
        return event
    }
}
