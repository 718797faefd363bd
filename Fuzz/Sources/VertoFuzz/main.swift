import FuzzSupport
@testable import Signaling
import Synchronization

/// Request ids a run can predict, so seed frames can answer the client's requests.
final class Counter: Sendable {
    private let next = Mutex(0)
    func make() -> String { next.withLock { $0 += 1; return "id-\($0)" } }
}

/// JSON-RPC frames from a server into `VertoSession`, one conversation per input (frames
/// separated by NUL). Invariants: every frame the client sends is a well-formed JSON-RPC
/// message; output stays bounded by the input; JSON text is stable after one serialization
/// (checked on the first frame only: the check costs three more JSON passes per frame, and
/// every frame is a first frame in some input).
func fuzzVerto(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let frames = fuzzFrames(fuzzBytes(data, size), limit: fuzzConversationLimit)
    let counter = Counter()
    var configuration = VertoConfiguration(credentials: .password(login: "fuzz", password: "fuzz"))
    configuration.readiness = size % 2 == 0 ? .gatewayRegistered : .loggedIn
    var session = VertoSession(configuration: configuration, sessid: "fuzz-sessid", makeID: { counter.make() })
    session.connected(now: 0)
    var sent = session.takeOutput().frames.count
    for (index, frame) in frames.enumerated() {
        let now = Double(index) * 0.5
        session.received(frame, now: now)
        session.tick(now: now)
        let output = session.takeOutput()
        for text in output.frames {
            fuzzCheck((try? JSONRPCMessage.parse(text)) != nil, "the client sent a malformed frame")
        }
        sent += output.frames.count
        fuzzCheck(output.events.count <= 8, "one frame gave \(output.events.count) events")

        if index == 0, let value = try? JSONValue.parse(frame) {
            let once = value.serialized
            if let again = try? JSONValue.parse(once) {
                fuzzCheck(again.serialized == once, "JSON serialization is not stable")
            }
        }
    }
    fuzzCheck(sent <= 4 * (frames.count + 2), "\(sent) frames sent for \(frames.count) received")
    session.tick(now: 1_000)
    return 0
}

runFuzzer(fuzzVerto)
