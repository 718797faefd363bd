import FuzzSupport
@testable import Signaling

/// One SIP message or stream of messages per input: the first byte picks what reads it.
/// Invariants: an accepted datagram serializes back to its own bytes (bytes past Content-Length
/// aside) and parses again to the same message; every typed field reader throws a typed error
/// or returns; the stream framer cuts the same messages from the bytes whatever the chunking,
/// and buffers no more than its limit; the transaction layer sends at most two messages per message in
/// beyond one retransmission per running transaction.
func fuzzSIP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    var limits = SIPLimits()
    limits.maximumMessageSize = 8_192
    limits.maximumBodySize = 4_096
    limits.maximumLineLength = 2_048
    limits.maximumHeaderCount = 64
    switch mode % 3 {
    case 0: checkDatagram(input, limits: limits)
    case 1: checkStream(input, chunk: Int(mode / 3) % 17 + 1, limits: limits)
    default: checkTransactions(input, reliable: mode & 0x80 != 0, limits: limits)
    }
    return 0
}

func checkDatagram(_ input: [UInt8], limits: SIPLimits) {
    guard let message = try? SIPMessage.parse(input, limits: limits) else { return }
    let written = message.serialized
    fuzzCheck(written.count <= input.count && Array(input.prefix(written.count)) == written, "a message did not serialize to its own bytes")
    fuzzCheck((try? SIPMessage.parse(written, limits: limits)) == message, "a serialized message parsed differently")
    readEveryField(message)
    var changed = message
    changed.prepend(SIPHeader(.via, SIPVia(transport: "UDP", host: "192.0.2.1", port: 5060, branch: "z9hG4bK-fuzz").description))
    changed.removeFirstValue(.via)
    changed.setBody(message.body)
    // The default limits: the changed message may hold one more field than the target's limits allow.
    fuzzCheck((try? SIPMessage.parse(changed.serialized)) != nil, "a changed message did not parse again")
}

func readEveryField(_ message: SIPMessage) {
    _ = try? message.validate()
    _ = try? message.vias()
    _ = try? message.maxForwards()
    _ = try? message.expires()
    _ = try? message.routes(.recordRoute)
    _ = try? message.from().sipURI()
    _ = try? message.to().sipURI()
    if let uri = message.requestURI { _ = try? SIPURI(parsing: uri) }
    if let contacts = try? message.contacts() {
        for contact in contacts {
            if let uri = try? contact.sipURI() {
                fuzzCheck((try? SIPURI(parsing: uri.serialized)) == uri, "a URI read differently once written")
            }
        }
    }
    for header in message.headers(.wwwAuthenticate) + message.headers(.proxyAuthenticate) {
        if let challenge = try? SIPDigestChallenge(parsing: header.value, isProxy: false), challenge.isSupported {
            _ = SIPDigestAuthorizer.authorizationValue(challenge: challenge, credentials: SIPCredentials(username: "fuzz", password: "fuzz"),
                                                       method: "REGISTER", uri: "sip:fuzz", cnonce: "c", nonceCount: 1)
        }
    }
    if let via = try? message.topVia() {
        fuzzCheck((try? SIPVia(parsing: via.description)) == via, "a Via read differently once written")
    }
    for header in message.headers(SIPReplaces.header) {
        if let replaces = SIPReplaces(parsing: header.value) {
            fuzzCheck(SIPReplaces(parsing: replaces.value) == replaces, "a Replaces read differently once written")
        }
    }
    _ = try? SIPReferral.request(of: message)
    _ = SIPReferral.subscription(asked: message)
    _ = SIPReason.sipStatus(in: message)
}

func checkStream(_ input: [UInt8], chunk: Int, limits: SIPLimits) {
    var whole = SIPStreamFramer(limits: limits)
    whole.append(input)
    let (expected, wholeFailed) = drainWithError(&whole)
    fuzzCheck(wholeFailed || whole.bufferedCount <= limits.maximumMessageSize, "the framer holds \(whole.bufferedCount) bytes")
    var pieces = SIPStreamFramer(limits: limits)
    var items: [SIPStreamFramer.Item] = []
    var failed = false
    var start = 0
    while start < input.count, !failed {
        pieces.append(input[start..<min(start + chunk, input.count)])
        start += chunk
        let (more, error) = drainWithError(&pieces)
        items += more
        failed = error
    }
    // Byte by byte, a lone CRLF at the end of a chunk is a pong where the whole input may have
    // held a ping; the messages cut must agree.
    fuzzCheck(items.compactMap(message) == expected.compactMap(message) || failed, "the framer cut different messages when chunked")
}

func message(_ item: SIPStreamFramer.Item) -> SIPMessage? {
    if case .message(let message) = item { return message }
    return nil
}

func drainWithError(_ framer: inout SIPStreamFramer) -> ([SIPStreamFramer.Item], Bool) {
    var items: [SIPStreamFramer.Item] = []
    for _ in 0..<256 {
        do {
            guard let item = try framer.next() else { return (items, false) }
            if case .message(let message) = item { readEveryField(message) }
            items.append(item)
        } catch {
            return (items, true)
        }
    }
    return (items, false)
}

func checkTransactions(_ input: [UInt8], reliable: Bool, limits: SIPLimits) {
    var layer = SIPTransactionLayer(reliable: reliable, limits: limits)
    let request = SIPMessage.request(method: "INVITE", uri: "sip:fuzz@example.com", headers: [
        SIPHeader(.via, "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-fuzz-1;rport"),
        SIPHeader(.maxForwards, "70"), SIPHeader(.from, "<sip:a@example.com>;tag=f"), SIPHeader(.to, "<sip:fuzz@example.com>"),
        SIPHeader(.callID, "fuzz-call"), SIPHeader(.cseq, "1 INVITE"), SIPHeader(.contact, "<sip:a@192.0.2.1>"),
    ])
    _ = try? layer.send(request, now: 0)
    _ = layer.takeOutput()
    let messages = fuzzFrames(input, limit: fuzzConversationLimit)
    for (index, text) in messages.enumerated() {
        let now = Double(index) * 0.7
        layer.received(Array(text.utf8), now: now)
        layer.tick(now: now)
        let output = layer.takeOutput()
        let running = layer.count.clients + layer.count.servers
        fuzzCheck(output.messages.count <= 2 + running, "\(output.messages.count) messages out for one in, \(running) transactions")
        for event in output.events {
            if case .request(let key, let request) = event {
                let status = 400 + index % 200
                try? layer.respond(to: key, with: .response(to: request, status: status, reason: "Fuzz", toTag: "t"), now: now)
            }
        }
        for sent in layer.takeOutput().messages {
            fuzzCheck((try? SIPMessage.parse(sent.serialized)) != nil, "the layer sent a message it cannot read")
        }
    }
    layer.tick(now: 1_000)
    // An INVITE with a provisional answer waits for the user's CANCEL (RFC 3261 §9.1), not a timer.
    fuzzCheck(layer.count.clients <= 1 && layer.count.servers == 0, "a transaction outlived every timer")
}

runFuzzer(fuzzSIP)
