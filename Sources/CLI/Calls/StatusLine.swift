import Foundation

/// The live status line cut to the terminal's width, so that it never wraps: a wrapped line is
/// not cleared by the next redraw and scrolls the terminal twice a second. The key reminder goes
/// first (down to its `? keys` hint), then the fields a person needs least; what is left is cut
/// at the last column.
struct StatusLine {
    /// One field and how long it stays: the lowest `keep` goes first, or turns into its `short`
    /// form, which stays as long as the short form's own rank.
    struct Field {
        var text: String
        var keep: Int
        var short: (text: String, keep: Int)? = nil
    }

    /// Field ranks, from the first dropped to the last.
    enum Rank {
        static let keys = 0
        static let devices = 1
        static let qualityWord = 2
        static let jitter = 3
        static let rtt = 4
        static let codec = 5
        /// `[? keys]`, what the key reminder shrinks to.
        static let keysHint = 6
        static let outMeter = 7
        static let inMeter = 8
        static let loss = 9
        static let mos = 10
        /// The state, the time and MUTED are never dropped.
        static let always = Int.max
    }

    /// The fields in display order, joined by spaces, dropped lowest rank first until they fit
    /// in `width - 1` columns (the last column would leave the cursor waiting to wrap).
    static func fit(_ fields: [Field], width: Int) -> String {
        let room = max(1, width - 1)
        var kept = fields
        var text = joined(kept)
        while text.count > room, let lowest = kept.filter({ $0.keep != Rank.always }).map(\.keep).min(),
              let index = kept.firstIndex(where: { $0.keep == lowest }) {
            if let short = kept[index].short {
                kept[index] = Field(text: short.text, keep: short.keep)
            } else {
                kept.remove(at: index)
            }
            text = joined(kept)
        }
        return cut(text, width: width)
    }

    /// Text cut to `width - 1` columns, for lines with nothing to drop (a destination being typed
    /// keeps its end, where the typing is).
    static func cut(_ text: String, width: Int, keepingEnd: Bool = false) -> String {
        let room = max(1, width - 1)
        guard text.count > room else { return text }
        return keepingEnd ? String(text.suffix(room)) : String(text.prefix(room))
    }

    private static func joined(_ fields: [Field]) -> String {
        fields.map(\.text).joined(separator: " ")
    }
}

/// The width of the terminal on standard error, read again on SIGWINCH.
/// Unchecked: `source` is set and cancelled by the presenter's one owner; Dispatch's sources are not marked Sendable.
final class TerminalWidth: @unchecked Sendable {
    private var source: DispatchSourceSignal?

    /// Columns of the terminal on standard error; `COLUMNS` or 80 when it does not say.
    static func current() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Calls `changed` with the new width on every SIGWINCH until `stop`.
    func watch(_ changed: @escaping @Sendable (Int) -> Void) {
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { changed(TerminalWidth.current()) }
        source.resume()
        self.source = source
    }

    func stop() {
        source?.cancel()
        source = nil
    }
}
