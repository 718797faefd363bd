@testable import CLI
@testable import Parley
import Testing

/// `parley call` with a `sip:` server (docs/sip.md, "Calls"): the dialect it implies, the
/// account's domain, the headers and caller id it carries, and the flags SIP does not carry yet,
/// refused before anything connects.
@Suite struct SIPConnectionTests {
    private func options(_ arguments: [String]) throws -> ConnectionOptions { try ConnectionOptions.parse(arguments) }

    @Test func aSIPServerImpliesTheDialectAndWSNeedsItSaid() throws {
        #expect(try options(["--server", "sip:127.0.0.1:5080"]).speaksSIP)
        #expect(try options(["--server", "sips:proxy.example"]).speaksSIP)
        #expect(try !options(["--server", "ws://127.0.0.1:8080"]).speaksSIP)
        #expect(try options(["--server", "ws://127.0.0.1:8080", "--dialect", "sip"]).speaksSIP)
        // The metrics' `dialect` label (docs/metrics.md).
        #expect(try options(["--server", "sip:127.0.0.1:5080"]).spokenDialect == .sip)
        #expect(try options(["--server", "ws://127.0.0.1:8188", "--dialect", "janus"]).spokenDialect == .janus)
        #expect(try options(["--server", "ws://127.0.0.1:8080"]).spokenDialect == .verto)
    }

    /// A newcomer's server URL with a transport or HTTP for its scheme is refused with the URL meant.
    @Test(arguments: [
        ("udp://pbx.example:5060", "for SIP over UDP write sip:pbx.example:5060;transport=udp"),
        ("tcp://pbx.example", "for SIP over TCP write sip:pbx.example;transport=tcp"),
        ("tls://pbx.example:5061", "for SIP over TLS write sips:pbx.example:5061"),
        ("https://pbx.example/ws", "a WebSocket on that server is wss://pbx.example/ws"),
    ])
    func aServerURLWithAnotherSchemeNamesTheOneMeant(_ server: String, _ hint: String) throws {
        let error = try #require(throws: ParleyError.self) { try options(["--server", server]).serverURL() }
        #expect(error.message.hasSuffix("; " + hint), "\(error.message)")
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

    @Test func headersAndCallerIDGoOverSIPAndABadOneIsRefusedBeforeAnythingConnects() throws {
        let base = ["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test"]
        #expect(throws: Never.self) {
            try CallCommand.parse(base + ["--header", "X-A=1", "--caller-name", #"Alice "A" \ L"#, "--caller-number", "+15551234"])
        }
        for (flags, reason) in [(["--header", "Via=x"], "header Via is written by the SIP stack"),
                                (["--header", "i=x"], "header Call-ID is written by the SIP stack"),
                                (["--header", "X-A#b=1"], "is not a SIP token"),
                                (["--caller-name", "Alice\r\nVia: x"], "caller name must not hold line breaks")] {
            let error = try #require(throws: (any Error).self) { try CallCommand.parse(base + flags) }
            #expect(CallCommand.message(for: error).contains(reason))
        }
        #expect(throws: Never.self) { try CallCommand.parse(base) }
    }

    /// A destination no INVITE can go to is refused with the usage error, before any REGISTER;
    /// a tel: number becomes a telephone user in the account's domain.
    @Test func aDestinationNoINVITECanCarryIsRefusedBeforeAnythingConnects() throws {
        let flags = ["--server", "sip:127.0.0.1", "--login", "alice@parley.test"]
        for destination in ["sip:", "sip:bob@", "bob smith", "<sip:bob@x>", "bob@@x", "sip:@host"] {
            let call = try #require(throws: (any Error).self) { try CallCommand.parse([destination] + flags) }
            #expect(CallCommand.message(for: call).contains("is not a SIP user, sip: URI or tel: number"), "\(destination)")
            #expect(throws: (any Error).self, "\(destination)") { try LoadCommand.parse([destination] + flags) }
        }
        for destination in ["bob", "+15551234", "bob@pbx.example", "sip:bob@10.0.0.1:5070;transport=tcp", "tel:+1-555-123-4567"] {
            #expect(throws: Never.self, "\(destination)") { try CallCommand.parse([destination] + flags) }
        }
        #expect(try SIPCallSignalling.requestURI(for: "tel:+1-555-(123).4567;phone-context=x", domain: "parley.test") == "sip:+15551234567@parley.test;user=phone")
        #expect(try SIPCallSignalling.requestURI(for: "bob", domain: "parley.test") == "sip:bob@parley.test")
    }

    @Test func noRegisterNoFollowRedirectsAndDelayedOfferGoWithASIPServerOnly() throws {
        let call = try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--no-register", "--no-follow-redirects",
                                          "--delayed-offer"])
        #expect(call.noRegister)
        #expect(call.noFollowRedirects)
        #expect(call.delayedOffer)
        for flag in ["--no-register", "--no-follow-redirects", "--delayed-offer"] {
            let verto = try #require(throws: (any Error).self) { try CallCommand.parse(["bob", "--server", "ws://127.0.0.1:8080", flag]) }
            #expect(CallCommand.message(for: verto).contains("--no-register, --no-follow-redirects and --delayed-offer go with a SIP server"))
        }
    }

    @Test func mediaOtherThanWebRTCGoesWithASIPServerOnly() throws {
        let plain = try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--media", "plain"])
        #expect(try plain.media.mediaOptions().mediaProfile == .plain)
        let sdes = try AnswerCommand.parse(["--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--media", "sdes"])
        #expect(try sdes.media.mediaOptions().mediaProfile == .sdes)
        #expect(try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test"]).media.mediaOptions().mediaProfile == .webrtc)
        let verto = try #require(throws: (any Error).self) { try CallCommand.parse(["bob", "--server", "ws://127.0.0.1:8080", "--media", "plain"]) }
        #expect(CallCommand.message(for: verto).contains("--media plain goes with a SIP server"))
        let load = try #require(throws: (any Error).self) { try LoadCommand.parse(["bob", "--server", "ws://127.0.0.1:8080", "--media", "sdes"]) }
        #expect(LoadCommand.message(for: load).contains("--media sdes goes with a SIP server"))
        #expect(throws: (any Error).self) { try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--media", "rtp"]) }
    }

    @Test func aDelayedOfferGoesWithASIPServerOnly() throws {
        #expect(try LoadCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--delayed-offer"]).delayedOffer)
        let verto = try #require(throws: (any Error).self) { try LoadCommand.parse(["bob", "--server", "ws://127.0.0.1:8080", "--delayed-offer"]) }
        #expect(LoadCommand.message(for: verto).contains("--delayed-offer goes with a SIP server"))
    }

    @Test func loadSpeaksSIPWithTheAgentFlags() throws {
        #expect(throws: Never.self) { try LoadCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--calls", "5"]) }
        #expect(throws: Never.self) {
            try LoadCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--agent", "ws://127.0.0.1:9/agent"])
        }
        #expect(throws: Never.self) {
            try CallCommand.parse(["bob", "--server", "sip:127.0.0.1", "--login", "alice@parley.test", "--agent", "ws://127.0.0.1:9/agent", "--agent-dialect", "twilio"])
        }
        let janus = try #require(throws: (any Error).self) { try LoadCommand.parse(["echotest", "--server", "ws://127.0.0.1:8188", "--dialect", "janus"]) }
        #expect(LoadCommand.message(for: janus).contains("not Janus"))
    }

    @Test func answerCarriesForwardEarlyMediaAndAgentsOverSIP() {
        // A forward (302), early media (183) and an agent are carried.
        for flags in [["--forward", "carol"], ["--early-media", "2"], ["--reject"], ["--agent-exec", "cat"]] {
            #expect(throws: Never.self) { try AnswerCommand.parse(["--server", "sip:127.0.0.1", "--login", "bob@parley.test"] + flags) }
        }
    }
}
