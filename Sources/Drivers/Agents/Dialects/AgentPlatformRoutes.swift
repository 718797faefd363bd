import Foundation
import Signaling
import Parley

/// What each emulated REST call does (docs/agents.md, "Hang-up and transfer over REST"), and
/// the platform's answer, status and body as its docs and Pipecat's serializers expect them.
enum AgentPlatformRoutes {
    enum Action: Equatable {
        case hangup(callId: String)
        case transfer(callId: String, destination: String)
    }

    struct Route: Equatable {
        let action: Action
        /// The answer when the call is found, and when it is not (or no longer streaming).
        let done: (status: Int, body: String)
        let unknown: (status: Int, body: String)

        static func == (lhs: Route, rhs: Route) -> Bool { lhs.action == rhs.action && lhs.done == rhs.done && lhs.unknown == rhs.unknown }
    }

    /// The HTTP response to send.
    static func answer(_ request: AgentPlatformRequest?) -> String {
        guard let request else { return response(400, #"{"message":"the request is malformed, incomplete or over 16 KiB"}"#) }
        let route: Route
        do {
            guard let found = try self.route(request) else { return response(404, #"{"message":"not emulated by Parley (docs/agents.md)"}"#) }
            route = found
        } catch {
            return response(400, AgentEvent.json(["message": error.message]))
        }
        switch route.action {
        case .hangup(let callId):
            guard let call = AgentPlatformCalls.shared.call(callId) else { return response(route.unknown.status, route.unknown.body) }
            // Unstructured: the REST thread answers at once; the hang-up runs on the call's actor.
            Task { await call.hangup(cause: .normalClearing) }
        case .transfer(let callId, let destination):
            guard let call = AgentPlatformCalls.shared.call(callId) else { return response(route.unknown.status, route.unknown.body) }
            // Unstructured: as for the hang-up; a failed transfer leaves the call as it was.
            Task { try? await call.transfer(to: destination) }
        }
        return response(route.done.status, route.done.body)
    }

    /// Which emulated call this is; nil for a path that is none; throws for a known path asked wrongly.
    static func route(_ request: AgentPlatformRequest) throws(ParleyError) -> Route? {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        func bad(_ message: String) -> ParleyError { ParleyError(kind: .agent, message: message) }
        // Twilio: POST /2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}.json, form Status=completed.
        if parts.count == 6, parts[1] == "2010-04-01", parts[2] == "Accounts", parts[4] == "Calls", parts[5].hasSuffix(".json"), request.method == "POST" {
            let callSid = String(parts[5].dropLast(5))
            let form = Self.form(request.body)
            guard form["Status"] == "completed" || form["Status"] == "canceled" else { throw bad("only Status=completed (or canceled) is emulated") }
            return Route(action: .hangup(callId: callSid),
                         done: (200, AgentEvent.json(["sid": callSid, "account_sid": parts[3], "status": "completed"])),
                         unknown: (404, AgentEvent.json(["code": 20404, "message": "The requested resource was not found", "status": 404])))
        }
        // Telnyx: POST /v2/calls/{call_control_id}/actions/hangup | transfer {"to": …}.
        if parts.count == 6, parts[1] == "v2", parts[2] == "calls", parts[4] == "actions", request.method == "POST" {
            let ended = (422, AgentEvent.json(["errors": [["code": "90018", "title": "Call has already ended"]]]))
            let ok = (200, AgentEvent.json(["data": ["result": "ok"]]))
            let id = parts[3].removingPercentEncoding ?? parts[3]
            switch parts[5] {
            case "hangup": return Route(action: .hangup(callId: id), done: ok, unknown: ended)
            case "transfer":
                guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], let to = object["to"] as? String,
                      !to.isEmpty, to.count <= 128, !to.contains(where: \.isWhitespace)
                else { throw bad("transfer needs \"to\": one word of 1-128 characters") }
                return Route(action: .transfer(callId: id, destination: to), done: ok, unknown: ended)
            default: return nil
            }
        }
        // Plivo: DELETE /v1/Account/{auth_id}/Call/{call_uuid}/.
        if parts.count == 7, parts[1] == "v1", parts[2] == "Account", parts[4] == "Call", parts[6].isEmpty, request.method == "DELETE" {
            return Route(action: .hangup(callId: parts[5]), done: (204, ""), unknown: (404, AgentEvent.json(["error": "not found"])))
        }
        // Vonage: PUT /v1/calls/{uuid} {"action": "hangup"}.
        if parts.count == 4, parts[1] == "v1", parts[2] == "calls", request.method == "PUT" {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], object["action"] as? String == "hangup" else {
                throw bad("only {\"action\": \"hangup\"} is emulated")
            }
            return Route(action: .hangup(callId: parts[3]), done: (204, ""), unknown: (404, AgentEvent.json(["title": "Not Found"])))
        }
        return nil
    }

    /// `application/x-www-form-urlencoded` pairs.
    static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func response(_ status: Int, _ body: String) -> String {
        let reason = [200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 422: "Unprocessable Entity"][status] ?? "Error"
        let bytes = body.utf8.count
        return "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(bytes)\r\nConnection: close\r\n\r\n\(body)"
    }
}
