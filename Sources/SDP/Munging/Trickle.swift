extension SessionDescription {
    /// Adds or removes the `trickle` ICE option (RFC 8840). When adding and no ice-options line
    /// exists, each active section gets `a=ice-options:trickle`, as JSEP writes it.
    public mutating func setTrickle(_ enabled: Bool) {
        let hasOptions = attributes.contains(named: ICEOptions.attributeName)
            || media.contains { $0.attributes.contains(named: ICEOptions.attributeName) }
        attributes.setTrickleOption(enabled)
        for index in media.indices {
            media[index].attributes.setTrickleOption(enabled)
        }
        guard enabled && !hasOptions else { return }
        for index in media.indices where !media[index].isRejected {
            let line = ICEOptions(["trickle"]).attribute
            let attributes = media[index].attributes
            let anchor = attributes.lastIndex { $0.name == ICEPassword.attributeName || $0.name == ICEUsernameFragment.attributeName }
            media[index].attributes.insert(line, at: anchor.map { $0 + 1 } ?? attributes.count)
        }
    }

    /// Removes every `a=candidate` and `a=end-of-candidates` line.
    public mutating func stripCandidates() {
        let names: Set<String> = [Candidate.attributeName, EndOfCandidates.attributeName]
        attributes.removeAll { names.contains($0.name) }
        for index in media.indices {
            media[index].attributes.removeAll { names.contains($0.name) }
        }
    }
}

extension Array where Element == Attribute {
    mutating func setTrickleOption(_ enabled: Bool) {
        var emptied: [Int] = []
        for index in indices where self[index].name == ICEOptions.attributeName {
            guard var options = try? ICEOptions(attributeValue: self[index].value) else { continue }
            let has = options.options.contains("trickle")
            if enabled && !has {
                options.options.append("trickle")
            } else if !enabled && has {
                options.options.removeAll { $0 == "trickle" }
                if options.options.isEmpty { emptied.append(index) }
            } else {
                continue
            }
            self[index] = options.attribute
        }
        for index in emptied.reversed() { remove(at: index) }
    }
}
