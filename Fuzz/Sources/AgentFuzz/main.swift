import FuzzSupport
@testable import Drivers

/// What an agent program sends (docs/agents.md) through the parser and through a call's bridge,
/// as the link thread hands it over: Parley's own protocol, or what a platform's bot sends back
/// in each dialect and format (media, marks, clears, stops, bad base64, wrong types, huge
/// frames). The input is split at newlines into messages; a first byte of 0 makes a message
/// binary; a first byte of 1 makes it huge (the rest repeated to 64 KiB or more). An input whose
/// first byte is 2-9 or 11-31 speaks a platform dialect, that byte choosing the dialect, the
/// format and whether the call runs at the wire's rate or at 48 kHz (the resampler).
/// Invariants: a parsed hello names a rate the protocol has; a `media` event the fast path reads
/// (AgentMediaText+Read.swift) the parser reads the same; a dialect's reader returns audio that
/// fits the link's samples and marks of 1-256 bytes, or a typed error, which the bridge counts
/// and answers with nothing; whatever arrives, the bridge's next messages fit the link's buffer
/// and the clock side reads a whole frame.
func fuzzAgent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var bytes = fuzzBytes(data, size)
    var wire: (any AgentWire)?
    var codecRate = 48000
    if let selector = bytes.first, (2...31).contains(selector), selector != UInt8(ascii: "\n") {
        let index = Int(selector) / 2 % platformFormats.count
        let (dialect, format) = platformFormats[index]
        wire = try? AgentDialectOptions(dialect: dialect, format: format).makeWire()
        fuzzCheck(wire?.sampleRate == format.sampleRate, "\(dialect) \(format) made no wire at its rate")
        if selector % 2 == 0 { codecRate = format.sampleRate }
        bytes.removeFirst()
    }
    let bridge = AgentBridge(binaryAllowed: true, wire: wire, wake: {})
    bridge.received(UnsafeRawBufferPointer(start: nil, count: 0), binary: false)
    var refusals = bridge.counterSnapshot().errorsSent
    for message in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
        let binary = message.first == 0
        var body = Array(binary ? message.dropFirst() : message[...])
        if body.first == 1 {
            let unit = body.dropFirst()
            body = unit.isEmpty ? [] : Array(repeatElement(unit, count: 65_536 / unit.count + 1).joined())
        }
        if let wire {
            readAsPlatform(body, binary: binary, wire: wire, bridge: bridge, refusals: &refusals)
            continue
        }
        if !binary, case .hello(_, let rate, _)? = try? body.withUnsafeBytes({ try AgentMessageParser.parse($0) }) {
            fuzzCheck(AgentProtocol.sampleRates.contains(rate), "a hello at \(rate) Hz was accepted")
        }
        if !binary {
            var samples = [Int16](repeating: 0, count: 8192)
            let read = body.withUnsafeBytes { raw in samples.withUnsafeMutableBufferPointer { AgentMediaText.read(raw, into: $0) } }
            if let read {
                let parsed = try? body.withUnsafeBytes { try AgentMessageParser.parse($0) }
                fuzzCheck(parsed == .media(payload: Array(samples[..<read])), "the media fast path read \(read) samples the parser reads otherwise")
            }
        }
        body.withUnsafeBytes { bridge.received($0, binary: binary) }
    }
    if wire == nil { codecRate = 48000 }
    if bridge.sampleRate > 0, (try? bridge.attach(codecRate: codecRate)) != nil {
        var frame = [Int16](repeating: 0, count: codecRate / 50)
        for _ in 0..<6 {
            _ = frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) }
            frame.withUnsafeBufferPointer { bridge.listen(to: $0) }
        }
        if let wire { bridge.startStreaming(start: wire.start(AgentWireCall(callId: "c", direction: "incoming", from: "a", to: "b", parameters: ["k": "v"]))) }
    }
    var buffer = [UInt8](repeating: 0, count: 16_384)
    var rounds = 0
    while rounds < 64, let next = buffer.withUnsafeMutableBytes({ bridge.nextMessage(into: $0) }) {
        rounds += 1
        fuzzCheck(next.length <= buffer.count, "a message of \(next.length) bytes overran the buffer")
        // A platform's bot is sent no error events: the platforms send none.
        if wire != nil, !next.binary {
            fuzzCheck(!String(decoding: buffer[..<next.length], as: UTF8.self).contains(#""event":"error""#), "a platform's bot was sent an error event")
        }
    }
    bridge.close()
    return 0
}

/// Every dialect with every format its platform sends.
let platformFormats: [(AgentDialect, AgentWireFormat)] = AgentDialect.allCases.flatMap { dialect in
    AgentWireFormat.supported(by: dialect).map { (dialect, $0) }
}

/// One message from a platform's bot: the dialect's reader on its own, then the bridge, which
/// must count a message the reader refused and go on.
func readAsPlatform(_ body: [UInt8], binary: Bool, wire: any AgentWire, bridge: AgentBridge, refusals: inout Int) {
    var samples = [Int16](repeating: 0, count: 8192)
    let result = body.withUnsafeBytes { raw in
        samples.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(AgentProtocolError) in try wire.read(raw, binary: binary, into: buffer) }
        }
    }
    var refused = false
    switch result {
    case .success(.audio(let count)): fuzzCheck((0...8192).contains(count), "the reader returned \(count) samples")
    case .success(.mark(let name)): fuzzCheck(!name.isEmpty && name.utf8.count <= 256, "a mark of \(name.utf8.count) bytes")
    case .success(.clear), .success(.ignored): break
    case .failure(let error):
        refused = true
        fuzzCheck(!error.description.isEmpty, "a refusal without a message")
    }
    body.withUnsafeBytes { bridge.received($0, binary: binary) }
    let now = bridge.counterSnapshot().errorsSent
    fuzzCheck(now == refusals + (refused ? 1 : 0), "the bridge counted \(now - refusals) refusals for one message the reader \(refused ? "refused" : "took")")
    refusals = now
}

runFuzzer(fuzzAgent)
