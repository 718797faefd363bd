import Foundation
import Media
import Parley

/// `wait` and `expect` steps that hear words, a recorded prompt or keywords (docs/speech.md).
/// The media clock only cuts what the far end sends into stretches of speech; each stretch is
/// recognised (or compared with the recording) off the clock, by the shared `SpeechRecognizer`.
extension BotRun {
    enum Hearing {
        /// What the step listened for came: go on (nil: to the step's `next`).
        case matched(BotTarget?)
        /// It did not come in time; what was heard instead.
        case missed(HearingJudge.Summary)
        /// The call ended first; what the step heard before it did.
        case ended(HearingJudge.Summary)
        case cancelled
        case failed(String)
    }

    /// Listens until `hearing` is heard in speech that starts after the step, `timeout` passes,
    /// or the call ends. Speech still under way at the deadline or the end is judged before the
    /// step ends.
    func hear(_ hearing: BotHearing, within timeout: Duration) async -> Hearing {
        let deadline = ContinuousClock.now + timeout
        let initial: HearingJudge
        do {
            initial = try HearingJudge(hearing)
        } catch {
            return .failed("\(error)")
        }
        let step = await inbox.beginListening()
        let (stretches, feed) = AsyncStream.makeStream(of: SpeechSegmenter.Segment.self, bufferingPolicy: .bufferingNewest(8))
        // The call's first step hears the greeting already under way when the call came up:
        // there is no earlier prompt whose tail it could take for new speech. A step right
        // after a key press hears the speech under way too: a barge-in IVR stops its prompt at
        // the key and answers without a gap, so the answer continues straight from the prompt.
        let hearsSpeechUnderWay = trail.visited == 1 || followsKeyPress
        let segmenter = SpeechSegmenter(sampleRate: call.receivedSampleRate, startQuiet: hearsSpeechUnderWay ? .zero : SpeechSegmenter.defaultStartQuiet) { feed.yield($0) }
        let inbox = self.inbox
        // Unstructured: judges speech stretches while this step also waits for digits; awaited or cancelled before the step returns.
        let judging = Task { () -> (HearingJudge, BotTarget??, String?) in
            var judge = initial
            for await stretch in stretches {
                do {
                    if let match = try await judge.judge(stretch) {
                        await inbox.hear(step)
                        return (judge, match, nil)
                    }
                } catch {
                    await inbox.hear(step)
                    return (judge, nil, "\(error)")
                }
            }
            return (judge, nil, nil)
        }
        call.listen(with: segmenter)
        let event = await inbox.nextSound(before: deadline)
        call.stopListening()
        // The clock no longer feeds the segmenter (stopListening took the sink's lock).
        segmenter.finish()
        feed.finish()
        if event == .cancelled {
            judging.cancel()
            return .cancelled
        }
        // A far end that says its last words and hangs up at once was still heard: judge what
        // came before the end (or the deadline), then tell the end apart. Recognition that has
        // not finished within `verdictWait` fails the step rather than hold it (a process whose
        // recognisers are all busy would otherwise hold every verdict).
        let waitEnds = ContinuousClock.now + Self.verdictWait
        guard let (judged, match, failure) = await BoundedWait.value(of: judging, within: Self.verdictWait) else {
            return .failed("speech recognition did not finish within \(BotDurations.seconds(Self.verdictWait)) of the step's end")
        }
        if let failure { return .failed(failure) }
        if let match { return .matched(match) }
        // The free transcript, for the verdict, in what is left of the same bound: without it
        // the verdict says only the spotted word accuracy.
        // Unstructured: BoundedWait awaits it, or cancels it when the bound passes first.
        let transcribing = Task { () -> HearingJudge in
            var heard = judged
            await heard.transcribe()
            return heard
        }
        let heard = await BoundedWait.value(of: transcribing, within: max(.zero, waitEnds - ContinuousClock.now)) ?? judged
        // Voices the general language model reads well pass on the transcript made for the
        // verdict, at no more cost (docs/speech.md, "How a call is heard"), whether the
        // deadline passed or the call ended.
        if heard.transcriptMatches { return .matched(nil) }
        return event == .ended ? .ended(heard.summary) : .missed(heard.summary)
    }

    /// How long a step's verdict waits, after the deadline or the call's end, for the speech it
    /// heard to be recognised: the stretch under way and the free transcript (docs/speech.md,
    /// "How a call is heard").
    static let verdictWait = Duration.seconds(15)

    /// A step's verdict when what it expected did not come: what it expected and what it heard.
    /// The heard text is the far end's speech: the verdict carries it, logs only at debug level.
    func missed(_ hearing: BotHearing, within: Duration, step name: String, heard: HearingJudge.Summary) async -> StepResult {
        let reason = "expected \(hearing) within \(BotDurations.seconds(within)); \(heard.description)"
        logger.warning("bot failed", metadata: ["call": .string(call.callID), "step": .string(name),
                                                "reason": .string("expected \(hearing.kind) not heard (the transcript is logged at debug level)")])
        logger.debug("bot heard", metadata: ["call": .string(call.callID), "step": .string(name), "heard": .string(heard.description)])
        await call.hangup()
        return .end(.failed(.expectationFailed(step: name, reason: reason)))
    }
}

extension BotOutcome.Ending {
    /// The ending for logs above debug level: what the far end said (the transcript in a failed
    /// `heard:` check's reason) left out, as docs/speech.md promises.
    var loggedDescription: String {
        let text = description
        guard let heard = text.range(of: "; heard \"") else { return text }
        return text[..<heard.lowerBound] + "; heard other words (the transcript is logged at debug level)"
    }
}

extension BotHearing {
    /// What kind of thing a step listened for, without its words: for logs.
    var kind: String {
        switch self {
        case .words: "words"
        case .prompt: "prompt"
        case .keywords: "keywords"
        }
    }
}
