@testable import CLI
import Parley
import Testing

/// `parley call` with a `sip:` server (docs/sip.md, "Calls"): the dialect it implies, the
/// account's domain, and the flags SIP does not carry yet, refused before anything connects.
@Suite struct SIPConnectionTests {
    private func options(_ arguments: [String]) throws -> ConnectionOptions { try ConnectionOptions.parse(arguments) }

    @Test func aSIPServerImpliesTheDialectAndWSNeedsItSaid() throws {
        #expect(try options(["--server", "sip:127.0.0.1:5080"]).speaksSIP)
        #expect(try options(["--server", "sips:proxy.example"]).speaksSIP)
        #expect(try !options(["--server", "ws://127.0.0.1:8080"]).speaksSIP)
        #expect(try options(["--server", "ws://127.0.0.1:8080", "--dialect", "sip"]).speaksSIP)
    }

    @Test func theDomainIsTheLoginsElseTheServersHost() throws {
        let given = try options(["--server", "sip:127.0.0.1:5080;transport=tcp", "--login", "alice@parley.test", "--password", "alice-secret"]).sipAccount()
        #expect(given.user == "alice" && given.domain == "parley.test" && given.server == "sip:127.0.0.1:5080;transport=tcp")
        let fromServer = try options(["--server", "sip:pbx.example:5080;transport=tcp", "--login", "alice", "--password", "alice-secret"]).sipAccount()
        #expect(fromServer.user == "alice" && fromServer.domain == "pbx.example")
        #expect(ConnectionOptions.host(ofSIPServer: "ws://[::1]:8080/sip") == "[::1]")
        #expect(ConnectionOptions.host(ofSIPServer: "sip:") == nil)
    }

    @Test func aTokenIsNoSIPLogin() throws {
        #expect(throws: ParleyError.self) { try options(["--server", "sip:127.0.0.1", "--token", "abc"]).sipAccount() }
    }

    @Test func headersAndCallerIDAreRefusedOverSIP() {
        #expect(throws: (any Error).self) { try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--header", "X-A=1"]) }
        #expect(throws: (any Error).self) { try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--caller-name", "Alice"]) }
        #expect(throws: Never.self) { try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test"]) }
    }

    @Test func answerRefusesWhatSIPDoesNotCarryYet() {
        #expect(throws: (any Error).self) { try AnswerCommand.parse(["--server", "sip:127.0.0.1", "--forward", "carol"]) }
        #expect(throws: (any Error).self) { try AnswerCommand.parse(["--server", "sip:127.0.0.1", "--early-media", "2"]) }
        #expect(throws: Never.self) { try AnswerCommand.parse(["--server", "sip:127.0.0.1", "--login", "bob@parley.test", "--reject"]) }
    }
}
