import Foundation

/// SIGINT, SIGTERM and SIGHUP as an event, so a command hangs up cleanly instead of dying
/// mid-call: Ctrl-C, a stop from a supervisor, or the terminal closing under `parley call` (the
/// far end would otherwise sit in a call with no audio until its media timeout).
/// Unchecked: `sources` is written only in init; Dispatch's signal sources are not marked Sendable.
final class Interruption: @unchecked Sendable {
    static let signalNumbers = [SIGINT, SIGTERM, SIGHUP]

    let signals: AsyncStream<Int32>
    private var sources: [DispatchSourceSignal] = []

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(4))
        signals = stream
        for number in Self.signalNumbers {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Why the call stopped, for its verdict and record.
    static func reason(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "interrupted (Ctrl-C)"
        case SIGHUP: "interrupted (hang-up signal: the terminal closed)"
        default: "interrupted (SIGTERM)"
        }
    }
}
