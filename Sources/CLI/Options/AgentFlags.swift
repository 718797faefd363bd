import ArgumentParser
import Drivers
import Foundation
import Parley

/// `--agent URL` and `--agent-exec COMMAND` on `answer`, `call` and `load` (docs/agents.md).
struct AgentFlags: ParsableArguments {
    @Option(help: "Stream each call's audio and control to a program over a WebSocket (ws:// or wss://, with --ca-file/--insecure as for --server; docs/agents.md).")
    var agent: String?

    @Option(help: "Start this command (by /bin/sh -c) for each call and stream the call over its standard input and output as newline-delimited JSON (docs/agents.md).")
    var agentExec: String?

    @Option(help: "Whose media-stream protocol the --agent program speaks: parley (the default), twilio, telnyx, exotel, plivo or vonage (docs/agents.md, \"Platform dialects\").")
    var agentDialect: String = AgentDialect.parley.rawValue

    @Option(help: "A custom parameter told to a platform dialect's bot at the start of each call, NAME=VALUE; repeatable (docs/agents.md).")
    var agentParam: [String] = []

    @Option(help: "The audio a platform dialect's stream carries, ENCODING[/RATE]: pcmu, pcma or l16/RATE, where the platform sends it (Telnyx pcma, l16/16000; Exotel l16/16000, l16/24000; Plivo l16/8000, l16/16000; Vonage l16/8000, l16/24000); default the platform's own (docs/agents.md, \"Each platform's formats\").")
    var agentFormat: String?

    @Option(help: "Serve the REST calls a platform's bot makes to hang up or transfer its call (Twilio, Telnyx, Plivo, Vonage) on 127.0.0.1:PORT for the run; 0 picks a free port (docs/agents.md).")
    var agentApiPort: Int?

    var isSet: Bool { agent != nil || agentExec != nil }

    /// Starts the emulated REST API when asked, and says where it is.
    func startPlatformAPI() throws(ParleyError) {
        guard let agentApiPort else { return }
        let api = try AgentPlatformAPI.start(port: agentApiPort) { Diagnostics.say("agent REST API: \($0)") }
        Diagnostics.say("agent REST API at \(api.baseURL)")
    }

    func validate() throws {
        if agent != nil, agentExec != nil { throw ValidationError("--agent and --agent-exec cannot go together") }
        if let agent {
            do {
                _ = try WebSocketURL(parsing: agent)
            } catch {
                throw ValidationError("--agent: \(error)")
            }
        }
        if let agentExec, agentExec.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--agent-exec needs a command") }
        do {
            let options = try dialectOptions()
            if options.dialect != .parley, agent == nil { throw ValidationError("--agent-dialect \(options.dialect.rawValue) goes with --agent URL (a platform's bot is a WebSocket server)") }
            if agentApiPort != nil, options.dialect == .parley { throw ValidationError("--agent-api-port goes with a platform --agent-dialect") }
            if let agentApiPort, !(0...65535).contains(agentApiPort) { throw ValidationError("--agent-api-port must be 0-65535") }
            if !options.parameters.isEmpty, options.dialect == .parley { throw ValidationError("--agent-param goes with a platform --agent-dialect; Parley's protocol tells the program the call's headers") }
            _ = try options.wireFormat()
        } catch let error as ParleyError {
            throw ValidationError(error.message)
        }
    }

    /// The dialect and its custom parameters, checked.
    func dialectOptions() throws(ParleyError) -> AgentDialectOptions {
        guard let dialect = AgentDialect(rawValue: agentDialect) else {
            throw ParleyError(kind: .configuration, message: "--agent-dialect must be one of \(AgentDialect.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var parameters: [AgentParameter] = []
        for text in agentParam { parameters.append(try AgentParameter(parsing: text)) }
        return AgentDialectOptions(dialect: dialect, parameters: parameters, format: try agentFormat.map { text throws(ParleyError) in try AgentWireFormat(parsing: text) })
    }

    /// Where each call's program is, with the signalling URL's TLS choices; nil without either flag.
    func endpoint(tls connection: ConnectionOptions) throws(ParleyError) -> AgentEndpoint? {
        if let agentExec { return .exec(command: agentExec) }
        guard let agent else { return nil }
        let url: WebSocketURL
        do {
            url = try WebSocketURL(parsing: agent)
        } catch {
            throw ParleyError(kind: .configuration, message: "--agent: \(error)")
        }
        var options = try connection.socketOptions()
        options.connectTimeout = .seconds(5)
        return .webSocket(url, options, try dialectOptions())
    }
}
