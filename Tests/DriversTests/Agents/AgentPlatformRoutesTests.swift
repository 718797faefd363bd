import Foundation
import Testing

@testable import Drivers
@testable import Parley

/// The emulated REST calls of the platforms' bots (docs/agents.md, "Hang-up and transfer over
/// REST"): which request is which action, the platform's answers, and what is refused.
@Suite struct AgentPlatformRoutesTests {
    private func request(_ method: String, _ path: String, body: String = "", type: String = "application/json") throws -> AgentPlatformRequest {
        let text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return try #require(AgentPlatformRequest(parsing: ArraySlice(Array(text.utf8))))
    }

    @Test func twilioCallUpdateWithStatusCompletedIsAHangUp() throws {
        let route = try #require(try AgentPlatformRoutes.route(request("POST", "/2010-04-01/Accounts/AC1/Calls/CA2.json", body: "Status=completed", type: "application/x-www-form-urlencoded")))
        #expect(route.action == .hangup(callId: "CA2"))
        #expect(route.done.status == 200)
        #expect(route.unknown.status == 404 && route.unknown.body.contains("20404"))
        #expect(throws: ParleyError.self) { try AgentPlatformRoutes.route(request("POST", "/2010-04-01/Accounts/AC1/Calls/CA2.json", body: "Twiml=%3CResponse%2F%3E")) }
    }

    @Test func telnyxHangupAndTransferActions() throws {
        let hangup = try #require(try AgentPlatformRoutes.route(request("POST", "/v2/calls/v3:abc/actions/hangup")))
        #expect(hangup.action == .hangup(callId: "v3:abc"))
        #expect(hangup.unknown.status == 422 && hangup.unknown.body.contains("90018"))
        let transfer = try #require(try AgentPlatformRoutes.route(request("POST", "/v2/calls/v3:abc/actions/transfer", body: #"{"to":"1001"}"#)))
        #expect(transfer.action == .transfer(callId: "v3:abc", destination: "1001"))
        #expect(throws: ParleyError.self) { try AgentPlatformRoutes.route(request("POST", "/v2/calls/v3:abc/actions/transfer", body: #"{"to":"a b"}"#)) }
        #expect(try AgentPlatformRoutes.route(request("POST", "/v2/calls/v3:abc/actions/speak")) == nil)
    }

    @Test func plivoDeleteAndVonagePut() throws {
        let plivo = try #require(try AgentPlatformRoutes.route(request("DELETE", "/v1/Account/MA1/Call/5b1e/")))
        #expect(plivo.action == .hangup(callId: "5b1e") && plivo.done.status == 204)
        let vonage = try #require(try AgentPlatformRoutes.route(request("PUT", "/v1/calls/9f2c", body: #"{"action":"hangup"}"#)))
        #expect(vonage.action == .hangup(callId: "9f2c") && vonage.done.status == 204)
        #expect(throws: ParleyError.self) { try AgentPlatformRoutes.route(request("PUT", "/v1/calls/9f2c", body: #"{"action":"mute"}"#)) }
    }

    @Test func anUnknownCallGetsThePlatformsNotFoundAndGarbageA400() throws {
        let answer = AgentPlatformRoutes.answer(try request("POST", "/v2/calls/v3:nobody/actions/hangup"))
        #expect(answer.hasPrefix("HTTP/1.1 422 "))
        #expect(AgentPlatformRoutes.answer(nil).hasPrefix("HTTP/1.1 400 "))
        #expect(AgentPlatformRoutes.answer(try request("GET", "/")).hasPrefix("HTTP/1.1 404 "))
        // Incomplete: the head without the body it announces.
        #expect(AgentPlatformRequest(parsing: ArraySlice(Array("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc".utf8))) == nil)
    }
}
