import Logging
import Parley

extension Call {
    /// Runs `runner`'s script on this answered call and returns what happened.
    public func runBot(_ runner: BotRunner, logger: Logger) async -> BotOutcome {
        guard let taps = await audioTaps() else {
            return BotOutcome(steps: [], digits: [], recordings: [], ending: .callerHungUp)
        }
        return await runner.run(on: CallBotControl(call: self, taps: taps), logger: logger)
    }
}
