import FuzzSupport
@testable import Signaling
@testable import Switch

/// Made once: it is the same for every input (and making it costs a UUID).
let configuration = SwitchConfiguration(accounts: [
    SwitchAccount(login: "alice", password: "a"), SwitchAccount(login: "bob", password: "b"),
    SwitchAccount(login: "carol", password: "c", tokens: ["t"]),
])

/// Frames from three clients into the embedded switch's core (frames separated by NUL; the
/// first byte of each frame picks the client). Invariants: everything the switch sends is a
/// well-formed JSON-RPC message, and it sends a bounded number of frames per frame received.
func fuzzSwitch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let frames = fuzzFrames(fuzzBytes(data, size), limit: fuzzConversationLimit)
    var core = SwitchCore(configuration: configuration)
    for peer in 1...3 { core.connected(peer: peer, now: 0) }
    for (index, frame) in frames.enumerated() {
        let now = Double(index)
        let peer = Int(frame.utf8.first ?? 0) % 4
        if peer == 0 {
            core.disconnected(peer: 1 + index % 3, now: now)
            core.connected(peer: 1 + index % 3, now: now)
        }
        core.received(peer == 0 ? frame : String(frame.dropFirst()), from: max(peer, 1), now: now)
        core.tick(now: now)
        let actions = core.takeActions()
        fuzzCheck(actions.count <= 16, "one frame gave \(actions.count) actions")
        for case .send(_, let text) in actions {
            fuzzCheck((try? JSONRPCMessage.parse(text)) != nil, "the switch sent a malformed frame")
        }
    }
    core.tick(now: 10_000)
    _ = core.takeActions()
    return 0
}

runFuzzer(fuzzSwitch)
