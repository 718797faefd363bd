import Foundation
@testable import Signaling
import Synchronization
import Testing

/// Replays a SIP transcript (fixtures/sip/*.sip, described in fixtures/sip/README.md) against the
/// transaction layer, a dialog and the digest authorizer, as a user agent would drive them. What
/// goes on the wire must match the transcript byte for byte (line ends aside); branches, tags
/// and cnonces come from counters, so the transcripts can state them.
struct SIPTranscriptReplay {
    let name: String
    private var layer: SIPTransactionLayer
    private var authorizer: SIPDigestAuthorizer
    private var now = 0.0
    private var sent: [SIPMessage] = []
    private var events: [SIPTransactionEvent] = []
    private var lastRequest: SIPMessage?
    private var lastInvite: SIPMessage?
    private var lastResponse: SIPMessage?
    private var lastReceivedRequest: (SIPTransactionKey, SIPMessage)?
    private var dialog: SIPDialog?
    private var branches = 0
    private let transport: String

    struct Step {
        let line: Int
        let command: [String]
        let message: [UInt8]?
    }

    init(name: String, transport: String, username: String, password: String) {
        self.name = name
        self.transport = transport
        layer = SIPTransactionLayer(reliable: transport != "UDP")
        let counter = SIPTestCounter()
        authorizer = SIPDigestAuthorizer(credentials: SIPCredentials(username: username, password: password),
                                         makeCNonce: { "cnonce-\(counter.next())" })
    }

    static func run(file: URL) throws {
        let steps = try parse(String(contentsOf: file, encoding: .utf8))
        let config = try #require(steps.first { $0.command.first == "transport" }, "\(file.lastPathComponent): no transport line")
        let user = steps.first { $0.command.first == "user" }?.command ?? []
        var replay = SIPTranscriptReplay(name: file.lastPathComponent, transport: config.command[1].uppercased(),
                                         username: user.count > 1 ? user[1] : "alice", password: user.count > 2 ? user[2] : "secret")
        for step in steps where !["transport", "user"].contains(step.command[0]) {
            try replay.perform(step)
        }
        replay.collect()
        #expect(replay.sent.isEmpty, "\(replay.name): unexpected messages sent: \(replay.sent.map(\.serializedText))")
        #expect(replay.events.isEmpty, "\(replay.name): unexpected events: \(replay.events)")
    }

    /// Lines starting with `::` are steps, lines starting with `#` comments; the lines after
    /// `:: out`, `:: in` and `:: do send` up to the next step are a message (CRLF put back; an
    /// empty line ends the head).
    static func parse(_ text: String) throws -> [Step] {
        var steps: [Step] = []
        var current: (line: Int, command: [String])?
        var block: [String] = []
        func finish() {
            guard let current else { return }
            while block.last?.isEmpty == true { block.removeLast() }
            var message: [UInt8]?
            if ["out", "in"].contains(current.command[0]) || current.command == ["do", "send"] {
                var text = block.joined(separator: "\r\n") + "\r\n"
                if !block.contains("") { text += "\r\n" }
                message = Array(text.utf8)
            }
            steps.append(Step(line: current.line, command: current.command, message: message))
            block = []
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("::") {
                finish()
                current = (index + 1, line.dropFirst(2).split(separator: " ").map(String.init))
            } else if line.hasPrefix("#") {
                continue
            } else if current != nil {
                block.append(String(line))
            } else if !line.isEmpty {
                throw SIPTestFailure("line \(index + 1): text before the first step")
            }
        }
        finish()
        return steps
    }

    private mutating func perform(_ step: Step) throws {
        let place = "\(name):\(step.line)"
        switch step.command[0] {
        case "at":
            now = try #require(Double(step.command[1]), "\(place)")
            layer.tick(now: now)
        case "out":
            collect()
            guard !sent.isEmpty else {
                Issue.record("\(place): expected a message to be sent, none was")
                return
            }
            let actual = sent.removeFirst().serializedText
            let expected = String(decoding: try #require(step.message), as: UTF8.self)
            #expect(actual == expected, "\(place): sent\n\(actual)\nexpected\n\(expected)")
        case "in":
            let message = try SIPMessage.parse(try #require(step.message))
            if message.isRequest == false { lastResponse = message }
            layer.received(message, now: now)
        case "event":
            collect()
            guard !events.isEmpty else {
                Issue.record("\(place): expected event \(step.command.dropFirst().joined(separator: " ")), there was none")
                return
            }
            let event = events.removeFirst()
            let actual = describe(event)
            #expect(actual == step.command.dropFirst().joined(separator: " "), "\(place): event \(actual)")
            if case .request(let key, let request) = event { lastReceivedRequest = (key, request) }
        case "do":
            try act(step, place: place)
        default:
            Issue.record("\(place): unknown step \(step.command)")
        }
    }

    private mutating func act(_ step: Step, place: String) throws {
        switch step.command[1] {
        case "send":
            let request = try SIPMessage.parse(try #require(step.message))
            try send(request)
        case "authorize":
            let request = try #require(lastRequest, "\(place): nothing to authorize")
            let response = try #require(lastResponse, "\(place): no challenge")
            var retry = request
            for header in try authorizer.answer(response, method: request.method ?? "", uri: request.requestURI ?? "") {
                retry.set(header.name, header.value)
            }
            let sequence = try request.cseq()
            retry.set(.cseq, SIPCSeq(number: sequence.number + 1, method: sequence.method).description)
            retry.set(.via, try nextVia().description)
            try send(retry)
        case "cancel":
            try send(SIPMessage.cancel(of: try #require(lastInvite, "\(place): no INVITE to cancel")))
        case "dialog":
            dialog = try SIPDialog(uacRequest: try #require(lastInvite), response: try #require(lastResponse))
            dialog?.confirm()
        case "ack", "bye":
            var current = try #require(dialog, "\(place): no dialog")
            let method = step.command[1].uppercased()
            let sequence = method == "ACK" ? try lastInvite?.cseq().number : nil
            let request = current.request(method, via: try nextVia(), sequence: sequence)
            dialog = current
            try send(request)
        case "respond":
            let (key, request) = try #require(lastReceivedRequest, "\(place): no request to answer")
            let status = try #require(Int(step.command[2]))
            let response = SIPMessage.response(to: request, status: status, reason: step.command.dropFirst(3).joined(separator: " "),
                                               toTag: status == 100 ? nil : "uas-tag")
            try layer.respond(to: key, with: response, now: now)
        default:
            Issue.record("\(place): unknown action \(step.command[1])")
        }
    }

    private mutating func send(_ request: SIPMessage) throws {
        try layer.send(request, now: now)
        if request.method != "ACK", request.method != "CANCEL" { lastRequest = request }
        if request.method == "INVITE" { lastInvite = request }
    }

    private mutating func nextVia() throws -> SIPVia {
        branches += 1
        return SIPVia(transport: transport, host: "192.0.2.10", port: 5060, branch: "z9hG4bK-replay-\(branches)")
    }

    private mutating func collect() {
        let output = layer.takeOutput()
        sent += output.messages
        events += output.events
    }

    private func describe(_ event: SIPTransactionEvent) -> String {
        switch event {
        case .response(let key, let response): "response \(key.method) \(response.status ?? 0)"
        case .request(_, let request): "request \(request.method ?? "")"
        case .ackForSuccess: "ack"
        case .strayResponse(let response): "stray \(response.status ?? 0)"
        case .timedOut(let key): "timeout \(key.method)"
        case .malformed(let error): "malformed \(error.kind.rawValue)"
        }
    }
}

/// Counts 1, 2, 3… across a closure the authorizer keeps.
final class SIPTestCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
