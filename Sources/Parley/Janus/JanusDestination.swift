/// What a call to a Janus server joins: the EchoTest plugin (our audio comes back) or an
/// AudioBridge room (we hear the mix of everyone else in it).
public enum JanusDestination: Sendable, Equatable, CustomStringConvertible {
    case echoTest
    case audioBridge(room: Int)

    /// `echotest` or `audiobridge:ROOM` (ROOM a positive number), as `parley call` takes it.
    public init(parsing text: String) throws(ParleyError) {
        let lowered = text.lowercased()
        if lowered == "echotest" {
            self = .echoTest
            return
        }
        let prefix = "audiobridge:"
        guard lowered.hasPrefix(prefix) else {
            throw ParleyError(kind: .configuration, message: "a Janus destination is `echotest` or `audiobridge:ROOM`, not \"\(text)\"")
        }
        guard let room = Int(lowered.dropFirst(prefix.count)), room > 0 else {
            throw ParleyError(kind: .configuration, message: "an AudioBridge room is a positive number: \"\(text)\"")
        }
        self = .audioBridge(room: room)
    }

    /// The Janus plugin package name to attach to.
    public var plugin: String {
        switch self {
        case .echoTest: "janus.plugin.echotest"
        case .audioBridge: "janus.plugin.audiobridge"
        }
    }

    public var description: String {
        switch self {
        case .echoTest: "echotest"
        case .audioBridge(let room): "audiobridge:\(room)"
        }
    }
}
