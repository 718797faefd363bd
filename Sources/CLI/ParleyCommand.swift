import ArgumentParser

@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A headless WebRTC-style voice client for Linux.",
        subcommands: [VersionCommand.self, SDPCommand.self, SwitchCommand.self, CallCommand.self, AnswerCommand.self, LoadCommand.self, DemoCommand.self, SayCommand.self, DevicesCommand.self, EngineProfileCommand.self]
    )
}
