/// A JSON-RPC 2.0 id: clients use UUID strings, Verto servers use numbers.
package enum JSONRPCID: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case number(Int)

    var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let value): .integer(value)
        }
    }

    package var description: String {
        switch self {
        case .string(let text): text
        case .number(let value): String(value)
        }
    }
}

/// The `error` member of a response.
package struct JSONRPCErrorObject: Sendable, Equatable, Error {
    package var code: Int
    package var message: String
    /// The whole error object, for servers that put more in it (FreeSWITCH puts callID, cause, causeCode).
    package var details: JSONValue

    package init(code: Int, message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details ?? ["code": .integer(code), "message": .string(message)]
    }
}

/// One decoded frame. `frame` keeps the whole object so dialect code can read top-level extras
/// such as Telnyx's `voice_sdk_id`.
package enum JSONRPCMessage: Sendable, Equatable {
    case request(id: JSONRPCID, method: String, params: JSONValue, frame: JSONValue)
    case notification(method: String, params: JSONValue, frame: JSONValue)
    case response(id: JSONRPCID, outcome: Result<JSONValue, JSONRPCErrorObject>, frame: JSONValue)
    /// An error with `"id": null`: the peer could not read the id of something we sent (JSON-RPC
    /// 2.0 §5), so it answers none of our requests.
    case errorWithoutID(JSONRPCErrorObject, frame: JSONValue)

    package var frame: JSONValue {
        switch self {
        case .request(_, _, _, let frame), .notification(_, _, let frame), .response(_, _, let frame), .errorWithoutID(_, let frame): frame
        }
    }
}

/// Why a received frame is not a JSON-RPC 2.0 message. The connection stays up.
package struct JSONRPCFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable { case notJSON, notAnObject, wrongVersion, badID, noMethodOrResult, badError, tooLarge }
    package let kind: Kind
    package let reason: String
    /// The id, when the frame had a usable one, so a server can answer with an error.
    package let id: JSONRPCID?

    package var description: String { "malformed JSON-RPC frame: \(reason)" }

    /// The standard error code to answer with (JSON-RPC 2.0 §5.1).
    package var responseCode: Int { kind == .notJSON ? -32700 : -32600 }
}

extension JSONRPCMessage {
    package static func parse(_ text: String, maximumSize: Int = 1 << 20) throws(JSONRPCFrameError) -> JSONRPCMessage {
        guard text.utf8.count <= maximumSize else {
            throw JSONRPCFrameError(kind: .tooLarge, reason: "frame of \(text.utf8.count) bytes exceeds \(maximumSize)", id: nil)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw JSONRPCFrameError(kind: .notJSON, reason: error.reason, id: nil)
        }
        guard case .object(let members) = value else {
            throw JSONRPCFrameError(kind: .notAnObject, reason: "the frame is not a JSON object", id: nil)
        }
        let id = try parseID(members["id"])
        guard members["jsonrpc"]?.stringValue == "2.0" else {
            throw JSONRPCFrameError(kind: .wrongVersion, reason: "\"jsonrpc\" must be \"2.0\"", id: id)
        }
        if let methodValue = members["method"] {
            guard let method = methodValue.stringValue, !method.isEmpty else {
                throw JSONRPCFrameError(kind: .noMethodOrResult, reason: "\"method\" must be a non-empty string", id: id)
            }
            let params = members["params"] ?? .object([:])
            if let id { return .request(id: id, method: method, params: params, frame: value) }
            return .notification(method: method, params: params, frame: value)
        }
        if let error = members["error"], !error.isNull {
            guard let code = error["code"]?.intValue else {
                throw JSONRPCFrameError(kind: .badError, reason: "\"error\" needs an integer \"code\"", id: id)
            }
            let message = error["message"]?.stringValue ?? ""
            let object = JSONRPCErrorObject(code: code, message: message, details: error)
            guard let id else { return .errorWithoutID(object, frame: value) }
            return .response(id: id, outcome: .failure(object), frame: value)
        }
        guard let id else {
            throw JSONRPCFrameError(kind: .badID, reason: "a response needs an id", id: nil)
        }
        guard let result = members["result"] else {
            throw JSONRPCFrameError(kind: .noMethodOrResult, reason: "the frame has neither \"method\", \"result\" nor \"error\"", id: id)
        }
        return .response(id: id, outcome: .success(result), frame: value)
    }

    private static func parseID(_ value: JSONValue?) throws(JSONRPCFrameError) -> JSONRPCID? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return .string(text)
        case .integer(let number)?: return .number(number)
        case .double(let number)? where number == number.rounded() && abs(number) < 1e15: return .number(Int(number))
        default: throw JSONRPCFrameError(kind: .badID, reason: "\"id\" must be a string or an integer", id: nil)
        }
    }

    package static func requestFrame(id: JSONRPCID, method: String, params: JSONValue, extras: [String: JSONValue] = [:]) -> JSONValue {
        var members = extras
        members["jsonrpc"] = "2.0"
        members["id"] = id.json
        members["method"] = .string(method)
        members["params"] = params
        return .object(members)
    }

    package static func notificationFrame(method: String, params: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "method": .string(method), "params": params]
    }

    package static func resultFrame(id: JSONRPCID, result: JSONValue, extras: [String: JSONValue] = [:]) -> JSONValue {
        var members = extras
        members["jsonrpc"] = "2.0"
        members["id"] = id.json
        members["result"] = result
        return .object(members)
    }

    package static func errorFrame(id: JSONRPCID?, error: JSONRPCErrorObject) -> JSONValue {
        var details = error.details.objectValue ?? [:]
        details["code"] = .integer(error.code)
        details["message"] = .string(error.message)
        return ["jsonrpc": "2.0", "id": id?.json ?? .null, "error": .object(details)]
    }
}
