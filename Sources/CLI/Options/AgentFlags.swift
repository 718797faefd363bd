import ArgumentParser
import Foundation
import Parley

/// `--agent URL` and `--agent-exec COMMAND` on `answer`, `call` and `load` (docs/agents.md).
struct AgentFlags: ParsableArguments {
    @Option(help: "Stream each call's audio and control to a program over a WebSocket (ws:// or wss://, with --ca-file/--insecure as for --server; docs/agents.md).")
    var agent: String?

    @Option(help: "Start this command (by /bin/sh -c) for each call and stream the call over its standard input and output as newline-delimited JSON (docs/agents.md).")
    var agentExec: String?

    var isSet: Bool { agent != nil || agentExec != nil }

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
        return .webSocket(url, options)
    }
}
