@testable import CLI
import Drivers
import Foundation
import Parley
import Testing

/// `--agent-dialect`, `--agent-param`, `--agent-format` and `--agent-api-port` (docs/agents.md,
/// "Platform dialects"): what goes together, checked before anything connects.
@Suite struct AgentFlagsTests {
    private func flags(_ arguments: [String]) throws -> AgentFlags { try AgentFlags.parse(arguments) }

    @Test func aPlatformDialectCarriesItsParametersToTheEndpoint() throws {
        let parsed = try flags(["--agent", "ws://127.0.0.1:9000/ws", "--agent-dialect", "telnyx", "--agent-param", "tenant=acme", "--agent-param", "lang=en"])
        let options = try parsed.dialectOptions()
        #expect(options.dialect == .telnyx)
        #expect(options.parameters == [try AgentParameter(name: "tenant", value: "acme"), try AgentParameter(name: "lang", value: "en")])
    }

    @Test func whatDoesNotGoTogetherIsRefused() {
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "skype"]) }
        #expect(throws: (any Error).self) { try flags(["--agent-exec", "cat", "--agent-dialect", "twilio"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-param", "a=b"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-api-port", "9301"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "plivo", "--agent-api-port", "70000"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "plivo", "--agent-param", "novalue"]) }
        // A format the platform does not send, or any on Parley's protocol: refused at the start.
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "twilio", "--agent-format", "pcma"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "exotel", "--agent-format", "l16/48000"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-format", "l16/16000"]) }
        #expect(throws: (any Error).self) { try flags(["--agent", "ws://127.0.0.1:9000", "--agent-dialect", "vonage", "--agent-format", "l16"]) }
    }

    @Test func aFormatThePlatformSendsReachesTheEndpoint() throws {
        let parsed = try flags(["--agent", "ws://127.0.0.1:9000/ws", "--agent-dialect", "exotel", "--agent-format", "l16/24000"])
        #expect(try parsed.dialectOptions().wireFormat() == AgentWireFormat(.l16, 24000))
        #expect(try flags(["--agent", "ws://127.0.0.1:9000/ws", "--agent-dialect", "telnyx"]).dialectOptions().wireFormat() == AgentWireFormat(.pcmu, 8000))
    }
}
