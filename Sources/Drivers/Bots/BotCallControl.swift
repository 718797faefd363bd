import Media
import Parley

/// What a bot needs from a call. `Call` implements it; `BotRunner` drives it.
package protocol BotCallControl: AnyObject, Sendable {
    var callID: String { get }
    /// The far end's number or name, for `{caller}` in spoken prompts.
    var remoteParty: String { get }
    /// DTMF digits the caller presses, in order; finishes when the call ends.
    /// One `BotRunner` consumes it for the whole call.
    var digits: AsyncStream<Character> { get }
    /// Plays `prompt` to the caller and returns when it has been played to the end (true) or the call ended first (false).
    /// Throws when the prompt cannot be built (an unreadable WAV, one too long): a bot failure, not a hangup.
    func play(_ prompt: BotPrompt) async throws(AudioError) -> Bool
    /// Arms barge-in for the next prompt: `stopPrompt()` then stops it even if it has not
    /// started yet, and `onSpeech` runs once, from the media clock thread, when the caller
    /// starts to speak.
    func armBargeIn(onSpeech: @escaping @Sendable () -> Void)
    /// Cuts the prompt now playing short; with barge-in armed and no prompt playing yet, the
    /// next `play` returns at once. `play` returns false for a prompt cut short.
    func stopPrompt()
    /// Stops listening for speech and forgets a stop that found no prompt.
    func disarmBargeIn()
    /// Records what the caller says into a WAV file at `path` until `stopRecording()`.
    func startRecording(path: String) throws
    func stopRecording()
    /// Sends the caller on to `destination` (a blind transfer: the bot has answered); nil when
    /// it went, else why not.
    func forward(to destination: String) async -> String?
    /// Ends the call (normal clearing). Safe to call twice.
    func hangup() async
    /// Runs `heard` once, from the media clock thread, when what the far end sends holds
    /// `sound`; replaces any earlier listener, barge-in's included.
    func listen(for sound: BotSound, heard: @escaping @Sendable () -> Void)
    func stopListening()
    /// Feeds what the far end sends to `listener` (speech cut into stretches for recognition)
    /// until `stopListening()`; replaces any earlier listener.
    func listen(with listener: any ReceivedAudioListener)
    /// The rate of the audio a listener hears.
    var receivedSampleRate: Int { get }
    /// Sends DTMF digits to the far end (RFC 4733, or out of band when it has no telephone-event).
    func sendDigits(_ digits: String) async throws
    /// The cause the call ended with (NORMAL_CLEARING, USER_BUSY…); waits for the end.
    func endCause() async -> String
}

extension BotCallControl {
    package var remoteParty: String { "" }
    /// A control that carries no audio hears no speech.
    package func listen(with listener: any ReceivedAudioListener) {}
    package var receivedSampleRate: Int { 16000 }

    /// Sends the caller on to `destination`; nil when it went, else why not. A control that
    /// cannot forward refuses.
    package func forward(to destination: String) async -> String? { "this call cannot be forwarded" }
}
