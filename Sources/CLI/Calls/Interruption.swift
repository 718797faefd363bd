import Foundation

/// SIGINT and SIGTERM as an event, so a command hangs up cleanly instead of dying mid-call.
/// Unchecked: `sources` is written only in init; Dispatch's signal sources are not marked Sendable.
final class Interruption: @unchecked Sendable {
    let signals: AsyncStream<Int32>
    private var sources: [DispatchSourceSignal] = []

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(4))
        signals = stream
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }
}
