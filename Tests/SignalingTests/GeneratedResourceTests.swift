import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Signaling
import Synchronization
import Testing

/// A resource made at request time (the metrics and readiness listener): each GET runs the
/// generator and gets its status and body, over a real libwebsockets listener on loopback.
@Suite struct GeneratedResourceTests {
    @Test func eachRequestGetsTheGeneratorsCurrentStatusAndBody() async throws {
        let ready = Atomic<Bool>(false)
        let hits = Atomic<Int>(0)
        let generator = HTTPGenerator {
            let count = hits.add(1, ordering: .relaxed).newValue
            return ready.load(ordering: .relaxed) ? HTTPReply(status: 200, body: Array("hit \(count)\n".utf8)) : HTTPReply(status: 503, body: Array("not ready\n".utf8))
        }
        var options = WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0)
        options.httpResources = [HTTPResource(path: "/ready", contentType: "text/plain", generator: generator)]
        let server = try await WebSocketServer.listen(options)
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/ready"))

        let (before, first) = try await URLSession.shared.data(from: url)
        #expect((first as? HTTPURLResponse)?.statusCode == 503)
        #expect(String(decoding: before, as: UTF8.self) == "not ready\n")
        ready.store(true, ordering: .relaxed)
        let (after, second) = try await URLSession.shared.data(from: url)
        #expect((second as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: after, as: UTF8.self) == "hit 2\n")
        let missing = try #require(URL(string: "http://127.0.0.1:\(server.port)/metrics"))
        #expect((try await URLSession.shared.data(from: missing).1 as? HTTPURLResponse)?.statusCode == 404)
    }
}
