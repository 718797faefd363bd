/// A JSEP description as Janus carries it.
package struct JSEP: Sendable, Equatable {
    package var type: String
    package var sdp: String
    /// Ask Janus for an ICE restart when it answers (`"restart": true`).
    package var restart: Bool = false

    package init(type: String, sdp: String, restart: Bool = false) {
        self.type = type
        self.sdp = sdp
        self.restart = restart
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["type": .string(type), "sdp": .string(sdp)]
        if restart { members["restart"] = true }
        return .object(members)
    }

    init?(_ value: JSONValue?) {
        guard let type = value?["type"]?.stringValue, let sdp = value?["sdp"]?.stringValue else { return nil }
        self.init(type: type, sdp: sdp)
    }
}

/// What a plugin said: its `plugindata.data`, and an SDP when it sent one.
package struct JanusPluginResult: Sendable, Equatable {
    package var plugin: String
    package var data: JSONValue
    package var jsep: JSEP?
}

/// Things Janus tells us without being asked (or long after being asked).
package enum JanusEvent: Sendable, Equatable {
    case webrtcUp(handle: Int)
    case media(handle: Int, type: String, receiving: Bool)
    case slowLink(handle: Int, uplink: Bool, lost: Int)
    case hangup(handle: Int, reason: String)
    case detached(handle: Int)
    /// A plugin event that answers none of our requests (e.g. another participant joined).
    case pluginEvent(handle: Int, JanusPluginResult)
    /// Janus trickled one of its candidates, or its end (`candidate` nil).
    case remoteCandidate(handle: Int, candidate: String?, sdpMid: String?, sdpMLineIndex: Int?)
    /// Janus acknowledged one of our session keepalives: the session and the socket are alive.
    case keepaliveAcknowledged
    /// The session timed out on Janus' side.
    case sessionTimeout
    case error(SignalingError)
    case socketClosed(WebSocketClosure)
}

/// One frame from Janus, read.
enum JanusInbound: Equatable {
    case success(transaction: String, data: JSONValue?, plugin: JanusPluginResult?)
    case ack(transaction: String)
    case error(transaction: String?, code: Int, reason: String)
    case event(transaction: String?, handle: Int, result: JanusPluginResult)
    case notice(JanusEvent)

    static func parse(_ text: String) throws(SignalingError) -> JanusInbound {
        let frame: JSONValue
        do { frame = try JSONValue.parse(text) } catch { throw .malformedFrame(error.reason) }
        guard let kind = frame["janus"]?.stringValue else { throw .malformedFrame("a Janus frame needs a \"janus\" string") }
        let transaction = frame["transaction"]?.stringValue
        let handle = frame["sender"]?.intValue ?? 0
        switch kind {
        case "success":
            guard let transaction else { throw .malformedFrame("success without a transaction") }
            return .success(transaction: transaction, data: frame["data"], plugin: pluginResult(frame))
        case "ack":
            guard let transaction else { throw .malformedFrame("ack without a transaction") }
            return .ack(transaction: transaction)
        case "error":
            let code = frame["error"]?["code"]?.intValue ?? 0
            return .error(transaction: transaction, code: code, reason: frame["error"]?["reason"]?.stringValue ?? "unknown error")
        case "event":
            guard let result = pluginResult(frame) else { throw .malformedFrame("event without plugindata") }
            return .event(transaction: transaction, handle: handle, result: result)
        case "webrtcup":
            return .notice(.webrtcUp(handle: handle))
        case "media":
            return .notice(.media(handle: handle, type: frame["type"]?.stringValue ?? "audio", receiving: frame["receiving"]?.boolValue ?? false))
        case "slowlink":
            return .notice(.slowLink(handle: handle, uplink: frame["uplink"]?.boolValue ?? false, lost: frame["lost"]?.intValue ?? 0))
        case "hangup":
            return .notice(.hangup(handle: handle, reason: frame["reason"]?.stringValue ?? ""))
        case "detached":
            return .notice(.detached(handle: handle))
        case "timeout":
            return .notice(.sessionTimeout)
        case "trickle":
            let candidate = frame["candidate"]
            if candidate?["completed"]?.boolValue == true {
                return .notice(.remoteCandidate(handle: handle, candidate: nil, sdpMid: nil, sdpMLineIndex: nil))
            }
            return .notice(.remoteCandidate(handle: handle, candidate: candidate?["candidate"]?.stringValue,
                                            sdpMid: candidate?["sdpMid"]?.stringValue, sdpMLineIndex: candidate?["sdpMLineIndex"]?.intValue))
        default:
            throw .unexpectedMessage("Janus sent \"\(kind)\", which this client does not handle")
        }
    }

    private static func pluginResult(_ frame: JSONValue) -> JanusPluginResult? {
        guard let plugindata = frame["plugindata"] else { return nil }
        return JanusPluginResult(plugin: plugindata["plugin"]?.stringValue ?? "", data: plugindata["data"] ?? .null, jsep: JSEP(frame["jsep"]))
    }
}
