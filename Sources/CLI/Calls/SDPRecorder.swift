import Foundation
import Parley
import SDP
import Locking

/// `--save-sdp DIR`: writes every SDP a call sends and receives as
/// `<call>-<n>-<sent|received>-<kind>.sdp`, byte for byte but for its secrets (ICE passwords,
/// SDES and k= keys, overwritten by `REDACTED…` so the file still parses as a fixture), each with a JSON sidecar `….json` naming the
/// peer, the time and the signalling message that carried it (docs/sdp.md, "Testing your munging").
///
/// An outgoing call's id is known only once the invite is out, so what comes before `name(_:)`
/// waits in memory (one offer) and is written under the call's id.
final class SDPRecorder: Sendable {
    enum Dialect: String { case verto, janus, sip }

    private struct State {
        var call: String?
        var count = 0
        var pending: [(exchange: SDPExchange, number: Int)] = []
    }

    private let directory: URL
    private let dialect: Dialect
    private let peer: String
    private let state = Lock(State())

    /// Fails when the folder cannot be made.
    init(directory: String, dialect: Dialect, peer: String, call: String? = nil) throws(ParleyError) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.dialect = dialect
        self.peer = peer
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw ParleyError(kind: .configuration, message: "--save-sdp: cannot make \(directory): \(error.localizedDescription)")
        }
        if let call { state.withLock { $0.call = Self.safeName(call) } }
    }

    /// What `MediaOptions.sdpObserver` calls.
    var observer: @Sendable (SDPExchange) -> Void {
        { [self] exchange in record(exchange) }
    }

    /// Names the call (its id) and writes what waited for the name.
    func name(_ call: String) {
        let label = Self.safeName(call)
        let waiting = state.withLock { state in
            state.call = label
            defer { state.pending = [] }
            return state.pending
        }
        for (exchange, number) in waiting { write(exchange, number: number, call: label) }
    }

    /// Numbers each SDP in the order the call saw them, named or not yet.
    private func record(_ exchange: SDPExchange) {
        let (call, number) = state.withLock { state -> (String?, Int) in
            state.count += 1
            if state.call == nil { state.pending.append((exchange, state.count)) }
            return (state.call, state.count)
        }
        if let call { write(exchange, number: number, call: call) }
    }

    private func write(_ exchange: SDPExchange, number: Int, call: String) {
        let base = "\(call)-\(number)-\(exchange.direction.rawValue)-\(exchange.kind.rawValue)"
        let sidecar = Sidecar(
            call: call, number: number, direction: exchange.direction.rawValue, kind: exchange.kind.rawValue, type: exchange.kind.type.rawValue,
            peer: peer, time: Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(exchange.time),
            signalling: Self.message(for: exchange, dialect: dialect), sdp: base + ".sdp")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            try Data(SessionDescription.maskedText(exchange.sdp).utf8).write(to: directory.appendingPathComponent(base + ".sdp"))
            try (encoder.encode(sidecar) + Data("\n".utf8)).write(to: directory.appendingPathComponent(base + ".json"))
        } catch {
            FileHandle.standardError.write(Data("warning: --save-sdp: cannot write \(base): \(error.localizedDescription)\n".utf8))
        }
    }

    /// The signalling message that carries an SDP of this kind, in this direction.
    static func message(for exchange: SDPExchange, dialect: Dialect) -> String {
        switch (dialect, exchange.kind) {
        case (.verto, .offer): return "verto.invite"
        case (.verto, .answer): return exchange.direction == .sent ? "verto.answer" : "verto.answer or verto.media (early media)"
        case (.verto, .restartOffer), (.verto, .holdOffer), (.verto, .reoffer): return "verto.modify (action updateMedia)"
        case (.verto, .restartAnswer), (.verto, .holdAnswer), (.verto, .reanswer): return "verto.modify result (updateMedia)"
        case (.verto, .attachOffer): return "verto.attach"
        case (.verto, .attachAnswer): return "verto.answer (attach)"
        case (.janus, _): return exchange.direction == .sent ? "janus message (jsep \(exchange.kind.type.rawValue))" : "janus event (jsep \(exchange.kind.type.rawValue))"
        // An INVITE without SDP (docs/sip.md, "Delayed offer") moves the offer to the 200 and the answer to the ACK.
        case (.sip, .offer): return exchange.direction == .sent ? "INVITE, or the 200 to an INVITE without SDP" : "INVITE, or the 200 to our INVITE without SDP"
        case (.sip, .answer): return exchange.direction == .sent ? "200 to the INVITE, or the ACK to a 200 that offered" : "200 to the INVITE, or 183 (early media), or the ACK to our offer in a 200"
        case (.sip, _): return exchange.kind.type == .offer ? "re-INVITE" : "200 to the re-INVITE"
        }
    }

    /// Call ids are UUIDs; anything else is made safe for a file name.
    private static func safeName(_ call: String) -> String {
        String(call.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }
}

private struct Sidecar: Encodable {
    let call: String
    let number: Int
    let direction: String
    let kind: String
    let type: String
    let peer: String
    let time: String
    let signalling: String
    let sdp: String
    /// What was overwritten by `REDACTED…` in the .sdp file.
    let redacted = ["a=ice-pwd", "a=crypto inline keys", "k="]
}
