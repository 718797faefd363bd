// A test helper, not a product: one ICE agent driven over stdin/stdout JSON lines, so that
// tests can run agents in different network namespaces (`ip netns exec NS ICEPeer`).
// Acting as the call layer would, it restarts by itself when the remote ufrag changes.
import Foundation

let peer = Peer()
Output.emit(["event": "ready"])
while let line = readLine() {
    if line == "quit" { break }
    peer.handle(line)
}
peer.close()
exit(0)
