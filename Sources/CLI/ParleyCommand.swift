import ArgumentParser
import Parley

@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A headless WebRTC-style voice client for Linux.",
        discussion: "Shell completion: parley --generate-completion-script bash (or zsh, fish); see docs/cli.md.",
        version: "parley \(ParleyVersion.version)",
        subcommands: [VersionCommand.self, SDPCommand.self, SwitchCommand.self, CallCommand.self, AnswerCommand.self, LoadCommand.self, DemoCommand.self, FeedbackCommand.self, SayCommand.self, TranscribeCommand.self, DevicesCommand.self, EngineProfileCommand.self]
    )

    static func main() async {
        await main(NegativeNumberArguments.joined(Array(CommandLine.arguments.dropFirst())))
    }
}
