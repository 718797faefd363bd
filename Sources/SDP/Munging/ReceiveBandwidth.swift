extension SessionDescription {
    /// Sets the receive bandwidth of every section of `kind` (e.g. "audio"): `b=AS:<kbps>` and
    /// `b=TIAS:<bps>` (RFC 3890), replacing those already there and keeping other b= lines.
    /// b= lines sit after c= and before k= and a= (RFC 8866 §5), which the model's order keeps.
    @discardableResult
    public mutating func setReceiveBandwidth(kbps: Int, for kind: String) throws(MungeError) -> [MungeWarning] {
        guard (1...10_000_000).contains(kbps) else {
            throw MungeError("bandwidth for \(kind) must be 1 to 10000000 kbps, not \(kbps)")
        }
        var touched = false
        for index in media.indices where media[index].kind == kind && !media[index].isRejected {
            touched = true
            media[index].setBandwidth(type: "AS", value: UInt64(kbps))
            media[index].setBandwidth(type: "TIAS", value: UInt64(kbps) * 1000)
        }
        return touched ? [] : [MungeWarning("no \(kind) m-line; b= not added")]
    }
}

extension MediaDescription {
    mutating func setBandwidth(type: String, value: UInt64) {
        var seen = false
        bandwidths = bandwidths.compactMap { line in
            guard line.type == type else { return line }
            defer { seen = true }
            return seen ? nil : Bandwidth(type: type, value: value)
        }
        if !seen { bandwidths.append(Bandwidth(type: type, value: value)) }
    }
}
