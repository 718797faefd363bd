import Foundation
import Signaling
import Testing
import Locking

/// Replays a JSON Lines transcript against a `VertoSession` (see fixtures/signaling/README.md).
///
/// Each line is one step. `"out"`: the frame the client must send next; its `id` binds the
/// transcript's id to the one the client made, and `"<any>"` matches any value. `"in"`: a frame
/// from the server, with bound ids swapped back. `"event"` / `"completion"`: what the session must
/// report next. `"do"`: an action of the client's owner. `"at"`: the time of the step, in seconds.
/// Nothing the session produced may be left unmatched at the end.
struct TranscriptReplay {
    let name: String
    private var session: VertoSession
    private var now: Double = 0
    private var boundIDs: [String: String] = [:]
    private var frames: [JSONValue] = []
    private var events: [VertoEvent] = []
    private var completions: [VertoCompletion] = []

    init(name: String, configuration: JSONValue?) {
        self.name = name
        var config: VertoConfiguration
        if let token = configuration?["token"]?.stringValue {
            config = VertoConfiguration(credentials: .token(token))
        } else {
            config = VertoConfiguration(credentials: .password(login: configuration?["login"]?.stringValue ?? "xxx",
                                                                password: configuration?["passwd"]?.stringValue ?? "yyy"))
        }
        if let agent = configuration?["userAgent"]?.stringValue { config.userAgent = agent }
        if let prefix = configuration?["methodPrefix"]?.stringValue { config.methodPrefix = prefix }
        if configuration?["readiness"] == "loggedIn" { config.readiness = .loggedIn }
        if let params = configuration?["loginParams"] { config.loginParams = params }
        if let variables = configuration?["userVariables"] { config.userVariables = variables }
        let counter = IDCounter()
        session = VertoSession(configuration: config, sessid: configuration?["sessid"]?.stringValue, makeID: { counter.next() })
    }

    static func run(file: URL) throws {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("//") && !$0.isEmpty }
        let steps = try lines.map { try JSONValue.parse(String($0)) }
        var replay = TranscriptReplay(name: file.lastPathComponent, configuration: steps.first?["config"])
        for (index, step) in steps.enumerated() where step["config"] == nil {
            try replay.perform(step, line: index + 1)
        }
        replay.collect()
        #expect(replay.frames.isEmpty, "\(replay.name): unexpected frames sent: \(replay.frames.map(\.serialized))")
        #expect(replay.events.isEmpty, "\(replay.name): unexpected events: \(replay.events)")
        #expect(replay.completions.isEmpty, "\(replay.name): unexpected completions: \(replay.completions)")
    }

    private mutating func perform(_ step: JSONValue, line: Int) throws {
        if let at = step["at"]?.doubleValue {
            now = at
            session.tick(now: now)
        }
        let place = "\(name):\(line)"
        if let expected = step["out"] {
            collect()
            guard !frames.isEmpty else {
                Issue.record("\(place): expected the client to send \(expected.serialized), it sent nothing")
                return
            }
            let actual = frames.removeFirst()
            if let expectedID = expected["id"]?.stringValue, let actualID = actual["id"]?.stringValue { boundIDs[expectedID] = actualID }
            var pattern = expected
            if case .object(var members) = pattern, let actualID = actual["id"] {
                if members["id"]?.stringValue != nil { members["id"] = actualID }
                pattern = .object(members)
            }
            #expect(Self.matches(actual, pattern), "\(place): sent \(actual.serialized)\n  expected \(pattern.serialized)")
        } else if let frame = step["in"] {
            session.received(rebind(frame).serialized, now: now)
        } else if let raw = step["inRaw"]?.stringValue {
            session.received(raw, now: now)
        } else if let expected = step["event"] {
            collect()
            guard !events.isEmpty else {
                Issue.record("\(place): expected event \(expected.serialized), there was none")
                return
            }
            let actual = TranscriptEvent.encode(events.removeFirst())
            #expect(Self.matches(actual, expected), "\(place): event \(actual.serialized)\n  expected \(expected.serialized)")
        } else if let expected = step["completion"] {
            collect()
            guard !completions.isEmpty else {
                Issue.record("\(place): expected completion \(expected.serialized), there was none")
                return
            }
            let completion = completions.removeFirst()
            let actual: JSONValue = switch completion.result {
            case .success(let result): ["method": .string(completion.method), "result": result]
            case .failure(let error): ["method": .string(completion.method), "error": .string(error.code), "message": .string(error.description)]
            }
            #expect(Self.matches(actual, expected), "\(place): completion \(actual.serialized)\n  expected \(expected.serialized)")
        } else if let action = step["do"] {
            try perform(action: action, place: place)
        } else if step["at"] == nil {
            Issue.record("\(place): a step needs out, in, inRaw, event, completion, do or at")
        }
    }

    private mutating func perform(action: JSONValue, place: String) throws {
        switch action["action"]?.stringValue {
        case "connect": session.connected(now: now)
        case "disconnect": session.disconnected(WebSocketClosure(code: 1006, reason: "", initiatedByPeer: true, error: nil))
        case "invite":
            var dial = VertoDialParameters(callID: action["callID"]?.stringValue ?? "", destination: action["destination"]?.stringValue ?? "")
            dial.callerName = action["callerName"]?.stringValue ?? ""
            dial.callerNumber = action["callerNumber"]?.stringValue ?? ""
            if let remote = action["remoteCallerName"]?.stringValue { dial.remoteCallerName = remote }
            dial.customHeaders = (action["headers"]?.arrayValue ?? []).compactMap {
                guard let name = $0["name"]?.stringValue, let value = $0["value"]?.stringValue else { return nil }
                return CustomHeader(name: name, value: value)
            }
            dial.clientState = action["clientState"]?.stringValue
            dial.trickle = action["trickle"]?.boolValue ?? false
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.invite(dial, sdp: action["sdp"]?.stringValue ?? "", now: now) }
        case "answer", "attach":
            let callID = action["callID"]?.stringValue ?? ""
            let attach = action["action"] == "attach"
            try expectNoThrow(place) { session, now throws(SignalingError) in
                try session.answer(callID: callID, sdp: action["sdp"]?.stringValue ?? "", attach: attach, now: now)
            }
        case "bye":
            let cause = HangupCause(cause: action["cause"]?.stringValue ?? "NORMAL_CLEARING", causeCode: action["causeCode"]?.intValue,
                                    sipCode: action["sipCode"]?.intValue, sipReason: action["sipReason"]?.stringValue)
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.bye(callID: action["callID"]?.stringValue ?? "", cause: cause, now: now) }
        case "hold":
            let hold = HoldAction(rawValue: action["hold"]?.stringValue ?? "") ?? .hold
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.modify(callID: action["callID"]?.stringValue ?? "", action: hold, now: now) }
        case "updateMedia":
            try expectNoThrow(place) { session, now throws(SignalingError) in
                try session.updateMedia(callID: action["callID"]?.stringValue ?? "", offer: action["sdp"]?.stringValue ?? "", now: now)
            }
        case "info":
            try expectNoThrow(place) { session, now throws(SignalingError) in
                try session.info(callID: action["callID"]?.stringValue ?? "", dtmf: action["dtmf"]?.stringValue ?? "", now: now)
            }
        case "candidate":
            let candidate = VertoCandidate(callID: action["callID"]?.stringValue ?? "", candidate: action["candidate"]?.stringValue ?? "",
                                           sdpMid: action["sdpMid"]?.stringValue, sdpMLineIndex: action["sdpMLineIndex"]?.intValue)
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.candidate(candidate, now: now) }
        case "endOfCandidates":
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.endOfCandidates(callID: action["callID"]?.stringValue ?? "", now: now) }
        case "probe":
            try expectNoThrow(place) { session, now throws(SignalingError) in try session.ping(now: now, timeout: .seconds(action["timeout"]?.doubleValue ?? 5)) }
        case "inviteBeforeReady":
            do {
                try session.invite(VertoDialParameters(callID: "x", destination: "y"), sdp: "v=0", now: now)
                Issue.record("\(place): invite before ready was accepted")
            } catch {
                #expect(error.code == "not-ready", "\(place): \(error)")
            }
        default:
            Issue.record("\(place): unknown action \(action.serialized)")
        }
    }

    private mutating func expectNoThrow(_ place: String, _ body: (inout VertoSession, Double) throws(SignalingError) -> JSONRPCID) throws {
        do {
            _ = try body(&session, now)
        } catch {
            Issue.record("\(place): the action failed: \(error)")
        }
    }

    private mutating func collect() {
        let output = session.takeOutput()
        frames += output.frames.compactMap { try? JSONValue.parse($0) }
        events += output.events
        completions += output.completions
    }

    /// Swaps transcript request ids for the ones the client made.
    private func rebind(_ frame: JSONValue) -> JSONValue {
        guard case .object(var members) = frame, let id = members["id"]?.stringValue, let bound = boundIDs[id] else { return frame }
        members["id"] = .string(bound)
        return .object(members)
    }

    static func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        if expected == "<any>" { return true }
        switch (actual, expected) {
        case (.object(let a), .object(let e)):
            return Set(a.keys) == Set(e.keys) && e.allSatisfy { key, value in a[key].map { matches($0, value) } ?? false }
        case (.array(let a), .array(let e)):
            return a.count == e.count && zip(a, e).allSatisfy { matches($0, $1) }
        case (.integer(let a), .double(let e)): return Double(a) == e
        case (.double(let a), .integer(let e)): return a == Double(e)
        default: return actual == expected
        }
    }
}

/// Deterministic request ids for replay: "id-1", "id-2", …
final class IDCounter: Sendable {
    private let value = Lock(0)
    func next() -> String {
        value.withLock { value in
            value += 1
            return "id-\(value)"
        }
    }
}
