import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Signaling
import Switch
import TestSupport
import Testing
import TestSupport

/// `parley switch --web`: the softphone's files by HTTP GET on the switch's own port, the
/// WebSocket beside them. The page itself is driven in Chromium by scripts/test-browser.
@Suite(.leakChecked) struct SoftphoneServingTests {
    private func get(_ path: String, from embedded: EmbeddedSwitch) async throws -> (status: Int, headers: [String: String], body: Data) {
        let url = try #require(URL(string: "http://127.0.0.1:\(embedded.url.port)\(path)"))
        // A session of its own, closed after: the shared one keeps the connection for reuse,
        // past the test and the switch (the leak check would see it in CLOSE_WAIT).
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (body, response) = try await session.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http.statusCode, headers, body)
    }

    @Test func theSwitchServesThePageItsScriptAndStyleBesideTheWebSocket() async throws {
        let harness = try await SwitchHarness.start { $0.servesSoftphone = true }
        afterTest { await harness.embedded.stop() }
        for resource in SoftphoneSite.resources {
            let (status, headers, body) = try await get(resource.path, from: harness.embedded)
            #expect(status == 200, "\(resource.path)")
            #expect(headers["content-type"] == resource.contentType)
            #expect(Array(body) == resource.body, "\(resource.path) comes back byte for byte")
            #expect(headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
            #expect(headers["cache-control"] == "no-store")
        }
        let page = try await get("/index.html", from: harness.embedded)
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("<title>Parley softphone</title>"))
        #expect(try await get("/../etc/passwd", from: harness.embedded).status == 404)
        #expect(try await get("/softphone.js.map", from: harness.embedded).status == 404)
        // The same port still speaks Verto.
        let (client, _) = try await harness.readyClient("alice", "alice-secret")
        await client.disconnect()
    }

    @Test func onlineJSONListsTheLoggedInLoginsAndNothingElse() async throws {
        let harness = try await SwitchHarness.start { $0.servesSoftphone = true }
        afterTest { await harness.embedded.stop() }
        let online = { () async throws -> [String: [String]] in
            let reply = try await self.get("/online.json", from: harness.embedded)
            #expect(reply.status == 200 && reply.headers["content-type"] == "application/json; charset=utf-8")
            return try JSONDecoder().decode([String: [String]].self, from: reply.body)
        }
        #expect(try await online() == ["online": []])
        let (alice, _) = try await harness.readyClient("alice", "alice-secret")
        let (bob, _) = try await harness.readyClient("bob", "bob-secret")
        let listed = try await online()
        #expect(listed == ["online": ["alice", "bob"]])
        let body = String(decoding: try await get("/online.json", from: harness.embedded).body, as: UTF8.self)
        #expect(!body.contains("secret") && !body.contains("127.0.0.1"), "login names only: \(body)")
        await alice.disconnect()
        var left: [String] = []
        for _ in 0..<50 {
            left = try await online()["online"] ?? []
            if left == ["bob"] { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(left == ["bob"], "alice is gone once her socket closed")
        await bob.disconnect()
    }

    @Test func withoutWebTheSwitchServesNoPage() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        #expect(try await get("/", from: harness.embedded).status == 404)
        #expect(try await get("/online.json", from: harness.embedded).status == 404)
        let (client, _) = try await harness.readyClient("alice", "alice-secret")
        await client.disconnect()
    }

    /// The script is a real file editors and linters read; the binary serves exactly that file.
    private static let scriptFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Switch/Web/softphone.js")

    @Test func theServedScriptIsTheRepositorysSoftphoneJS() throws {
        let served = try #require(SoftphoneSite.resources.first { $0.path == "/softphone.js" })
        let file = try Data(contentsOf: Self.scriptFile)
        #expect(served.body == Array(file), "the served /softphone.js is \(Self.scriptFile.path) byte for byte")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "node is not installed: the script's syntax is checked by scripts/test-browser's Chromium only"))
    func theScriptParsesAsJavaScript() async throws {
        try await run("/usr/bin/node", ["--check", Self.scriptFile.path])
    }

    @Test func thePageLoadsNothingFromAnotherOrigin() throws {
        for resource in SoftphoneSite.resources {
            let text = String(decoding: resource.body, as: UTF8.self)
            // A URL with a host in it; the page's own help text says "https://" alone.
            #expect(text.firstMatch(of: /(https?|wss?):\/\/[A-Za-z0-9]/) == nil, "\(resource.path) names another origin")
        }
    }
}
