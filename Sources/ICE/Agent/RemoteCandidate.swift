/// A remote `candidate` attribute value checked against RFC 8839 §5.1 before libnice sees it:
/// `foundation component transport priority address port "typ" type [extensions]`.
struct RemoteCandidate: Sendable, Equatable {
    let line: String
    let component: Int
    let address: String

    private static let types: Set<String> = ["host", "srflx", "prflx", "relay"]

    init(_ text: String) throws(ICEError) {
        var line = Substring(text).trimmingWhitespace
        if line.hasPrefix("a=") { line = line.dropFirst(2) }
        guard line.hasPrefix("candidate:") else { throw .invalidRemoteCandidate(reason: "it does not start with candidate:") }
        let fields = line.dropFirst("candidate:".count).split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8 else { throw .invalidRemoteCandidate(reason: "it has \(fields.count) fields, at least 8 are needed") }
        guard (1...32).contains(fields[0].count), fields[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }) else {
            throw .invalidRemoteCandidate(reason: "bad foundation")
        }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw .invalidRemoteCandidate(reason: "bad component id") }
        guard ["udp", "tcp"].contains(fields[2].lowercased()) else { throw .invalidRemoteCandidate(reason: "unsupported transport") }
        guard UInt32(fields[3]) != nil else { throw .invalidRemoteCandidate(reason: "bad priority") }
        let address = fields[4]
        guard (1...253).contains(address.count), address.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0.isLetter || $0 == "." || $0 == ":" || $0 == "-") }) else {
            throw .invalidRemoteCandidate(reason: "bad connection address")
        }
        guard let port = UInt16(fields[5]) else { throw .invalidRemoteCandidate(reason: "bad port") }
        guard fields[6] == "typ", Self.types.contains(String(fields[7])) else { throw .invalidRemoteCandidate(reason: "bad candidate type") }
        _ = port
        self.line = String(line)
        self.component = component
        self.address = String(address)
    }

    private init(line: String, component: Int, address: String) {
        self.line = line
        self.component = component
        self.address = address
    }

    /// A browser hides its host address behind a random `<uuid>.local` name (RFC 8839 §5.1, mDNS ICE candidates draft).
    var isMulticastDNS: Bool { address.lowercased().hasSuffix(".local") }

    func replacingAddress(with resolved: String) -> RemoteCandidate {
        var fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        fields[4] = resolved
        return RemoteCandidate(line: fields.joined(separator: " "), component: component, address: resolved)
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
