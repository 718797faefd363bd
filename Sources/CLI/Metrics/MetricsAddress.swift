/// `--metrics ADDR:PORT`: where the metrics listener binds. `PORT` or `:PORT` alone is loopback;
/// an IPv6 address goes in brackets (`[::1]:9464`); port 0 picks a free one.
struct MetricsAddress: Equatable, CustomStringConvertible {
    let host: String
    let port: Int

    init(parsing text: String) throws(MetricsAddressError) {
        let host: Substring
        let port: Substring
        if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            host = ""
            port = text[...]
        }
        guard let number = Int(port), (0...65535).contains(number) else { throw MetricsAddressError(text: text) }
        var name = String(host)
        if name.hasPrefix("[") {
            guard name.hasSuffix("]"), name.count > 2 else { throw MetricsAddressError(text: text) }
            name = String(name.dropFirst().dropLast())
        } else if name.contains(":") {
            throw MetricsAddressError(text: text)
        }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || ".:-".contains($0) }) else { throw MetricsAddressError(text: text) }
        self.host = name.isEmpty ? "127.0.0.1" : name
        self.port = number
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

struct MetricsAddressError: Error, CustomStringConvertible {
    let text: String
    var description: String { "--metrics \"\(text.prefix(80))\" is not ADDR:PORT (e.g. 127.0.0.1:9464, [::1]:9464 or :9464)" }
}
