import Parley

/// The audio a platform dialect carries (`--agent-format`, docs/agents.md "Each platform's
/// formats"): its encoding and rate. Each platform sends a few; Parley sends exactly one of
/// them, the platform's default unless asked, and refuses one the platform does not send
/// before any call starts.
public struct AgentWireFormat: Sendable, Equatable, CustomStringConvertible {
    public enum Encoding: String, Sendable, CaseIterable {
        /// G.711 μ-law and A-law, one byte a sample, 8 kHz.
        case pcmu, pcma
        /// 16-bit linear PCM.
        case l16
    }

    public let encoding: Encoding
    public let sampleRate: Int

    public init(_ encoding: Encoding, _ sampleRate: Int) {
        self.encoding = encoding
        self.sampleRate = sampleRate
    }

    /// `ENCODING[/RATE]`: `pcmu`, `pcma` (8000), `l16/16000`; the rate of `l16` is required.
    public init(parsing text: String) throws(ParleyError) {
        let parts = text.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let encoding = Encoding(rawValue: String(parts[0])) else {
            throw ParleyError(kind: .configuration, message: "--agent-format must be pcmu, pcma or l16/RATE (e.g. l16/16000), not \"\(text.prefix(40))\"")
        }
        let rate: Int
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), parsed > 0 else {
                throw ParleyError(kind: .configuration, message: "--agent-format: \"\(parts[1].prefix(12))\" is not a sample rate")
            }
            rate = parsed
        } else {
            guard encoding != .l16 else { throw ParleyError(kind: .configuration, message: "--agent-format l16 needs its rate: l16/8000, l16/16000 or l16/24000") }
            rate = 8000
        }
        self.init(encoding, rate)
    }

    public var description: String { "\(encoding.rawValue)/\(sampleRate)" }

    /// What each platform sends its bots, its default first (docs/agents.md cites each page).
    public static func supported(by dialect: AgentDialect) -> [AgentWireFormat] {
        switch dialect {
        case .parley: []
        case .twilio: [.init(.pcmu, 8000)]
        case .telnyx: [.init(.pcmu, 8000), .init(.pcma, 8000), .init(.l16, 16000)]
        case .exotel: [.init(.l16, 8000), .init(.l16, 16000), .init(.l16, 24000)]
        case .plivo: [.init(.pcmu, 8000), .init(.l16, 8000), .init(.l16, 16000)]
        case .vonage: [.init(.l16, 16000), .init(.l16, 8000), .init(.l16, 24000)]
        }
    }
}

extension AgentDialectOptions {
    /// The format this dialect's calls carry: the one asked for if the platform sends it, else
    /// its default; nil for Parley's own protocol (the program's hello picks its rate). Throws
    /// `configuration` for a format the platform does not send, or any on Parley's protocol.
    public func wireFormat() throws(ParleyError) -> AgentWireFormat? {
        let supported = AgentWireFormat.supported(by: dialect)
        guard let format else { return supported.first }
        guard dialect != .parley else {
            throw ParleyError(kind: .configuration, message: "--agent-format goes with a platform --agent-dialect; Parley's protocol takes the rate from the program's hello")
        }
        guard supported.contains(format) else {
            let list = supported.map { "\($0)" }.joined(separator: ", ")
            throw ParleyError(kind: .configuration, message: "--agent-format \(format): \(dialect.rawValue) does not send it; it sends \(list) (the first is its default)")
        }
        return format
    }
}
