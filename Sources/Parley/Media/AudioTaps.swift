/// A call's switchable source and sink and their rate: what a driver above the library (a bot,
/// Sources/Drivers/Bots/CallBotControl.swift) plays into and listens to from outside the call's actor.
package struct AudioTaps: Sendable {
    package let source: AudioSourceSwitch
    package let sink: AudioSinkSwitch
    package let sampleRate: Int
}
