import Foundation
import Parley

/// Whose media-stream protocol a WebSocket agent speaks (`--agent-dialect`, docs/agents.md):
/// Parley's own, or the one a telephony platform speaks to the bots it streams calls to, so a
/// bot written for that platform answers Parley's calls unchanged.
public enum AgentDialect: String, Sendable, CaseIterable, Equatable {
    case parley, twilio, telnyx, exotel, plivo, vonage
}

/// How a WebSocket agent is spoken to: the dialect, and the name-value pairs a platform hands
/// its bot as custom parameters (`--agent-param K=V`, after the call's custom headers).
public struct AgentDialectOptions: Sendable, Equatable {
    public var dialect: AgentDialect
    public var parameters: [AgentParameter]
    /// The audio the platform's stream carries (`--agent-format`); nil for the platform's
    /// default. Checked by `wireFormat()` before a call starts.
    public var format: AgentWireFormat?

    public init(dialect: AgentDialect = .parley, parameters: [AgentParameter] = [], format: AgentWireFormat? = nil) {
        self.dialect = dialect
        self.parameters = parameters
        self.format = format
    }

    public static let parley = AgentDialectOptions()
}

/// One `--agent-param` pair.
public struct AgentParameter: Sendable, Equatable {
    public let name: String
    public let value: String

    /// The most a name or a value may be: platforms cap custom parameters at a few hundred bytes.
    public static let maximumLength = 256

    /// `K=V`; the name non-empty, neither part over 256 bytes nor holding a control character.
    public init(parsing text: String) throws(ParleyError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ParleyError(kind: .configuration, message: "--agent-param must be NAME=VALUE")
        }
        let name = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        try self.init(name: name, value: value)
    }

    public init(name: String, value: String) throws(ParleyError) {
        guard !name.isEmpty, name.utf8.count <= Self.maximumLength, value.utf8.count <= Self.maximumLength,
              !(name + value).unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ParleyError(kind: .configuration, message: "--agent-param: the name must be 1-\(Self.maximumLength) bytes and the value at most \(Self.maximumLength), with no control characters")
        }
        self.name = name
        self.value = value
    }
}

/// What a platform dialect tells its bot about the call at `start`.
struct AgentWireCall: Sendable {
    var callId: String
    var direction: String
    var from: String
    var to: String
    /// The call's custom headers, then the `--agent-param` pairs (a pair wins over a header).
    var parameters: [String: String]
}
