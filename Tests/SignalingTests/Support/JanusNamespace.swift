import Foundation
import Media
import SDP
import Signaling
import TestSupport

/// A real Janus in a network namespace of its own (scripts/interop/janus-netns), removed by `stop`.
struct JanusNamespace {
    let url: WebSocketURL
    let name: String

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/interop/janus-netns").path
    }

    static func start() async throws -> JanusNamespace {
        let output = try await run(script, ["up"]).split(separator: "\n").last.map(String.init) ?? ""
        let fields = output.split(separator: " ").map(String.init)
        guard fields.count == 2 else { throw CommandFailed(command: "janus-netns up", output: output) }
        return JanusNamespace(url: try WebSocketURL(parsing: fields[0]), name: fields[1])
    }

    func stop() async {
        _ = try? await run(Self.script, ["down", name])
    }

    /// A real DTLS-SRTP audio offer as Parley makes it, with one host candidate on the host side
    /// of the veth pair (nothing answers there; ICE is not under test here).
    static func audioOffer(hostAddress: String) throws -> String {
        let identity = try DTLSIdentity.generate()
        let candidate = try Candidate(attributeValue: "1 1 udp 2122260223 \(hostAddress) 40000 typ host")
        let ice = ICEDescription(ufrag: "prlyTest", password: "parleyTestPassword0123456", trickle: true, candidates: [candidate])
        return SessionDescription.audioOffer(OfferOptions(ice: ice, security: .dtls(identity.fingerprint), sessionId: "4611731400430051336")).text
    }
}
