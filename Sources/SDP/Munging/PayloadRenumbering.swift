extension SessionDescription {
    /// Gives the codec that `selector` names the payload type `newPayloadType` in every RTP
    /// section that has it: the format list, rtpmap, fmtp and rtcp-fb lines, and every reference
    /// to it (`apt=` of rtx, the payload list of red) change together. A codec that already holds
    /// the new number in that section takes the old one (the two swap).
    @discardableResult
    public mutating func replacePayloadType(of selector: CodecSelector, with newPayloadType: Int) throws(MungeError) -> [MungeWarning] {
        guard (0...127).contains(newPayloadType) else {
            throw MungeError("payload type \(newPayloadType) is out of range; RTP payload types are 0 to 127")
        }
        var warnings: [MungeWarning] = []
        var found = false
        for index in media.indices where media[index].isRTP {
            let codecs = media[index].codecs
            let matches = codecs.filter(selector.matches)
            guard let codec = matches.first else { continue }
            found = true
            let where_ = media[index].label(index: index)
            guard matches.count == 1 else {
                let numbers = matches.map { String($0.payloadType) }.joined(separator: ", ")
                warnings.append(MungeWarning("\(where_): \(selector) matches payload types \(numbers); left unchanged; add fmtp properties to tell them apart (CODEC;KEY=VALUE;...)"))
                continue
            }
            guard codec.payloadType != newPayloadType else { continue }
            var mapping = [codec.payloadType: newPayloadType]
            if let holder = codecs.first(where: { $0.payloadType == newPayloadType }) {
                mapping[newPayloadType] = codec.payloadType
                warnings.append(MungeWarning("\(where_): \(holder.label) held \(newPayloadType) and now has \(codec.payloadType)"))
            }
            if !(96...127).contains(newPayloadType) && !StaticPayloadTypes.isStatic(newPayloadType, for: codec) {
                warnings.append(MungeWarning("\(where_): \(codec.label) moved to \(newPayloadType), outside the dynamic range 96-127"))
            }
            media[index].renumberPayloadTypes(mapping, codecs: codecs)
        }
        if !found {
            warnings.append(MungeWarning("no m-line has a codec matching \(selector); nothing renumbered"))
        }
        return warnings
    }
}

extension MediaDescription {
    /// Applies `mapping` (old → new payload type) to everything in the section that names a payload type.
    mutating func renumberPayloadTypes(_ mapping: [Int: Int], codecs: [Codec]) {
        func mapped(_ text: String) -> String {
            guard let number = Int(text), let new = mapping[number] else { return text }
            return String(new)
        }
        formats = formats.map(mapped)
        let redPayloadTypes = Set(codecs.filter { $0.name.lowercased() == "red" }.map { String($0.payloadType) })
        for index in attributes.indices {
            let attribute = attributes[index]
            guard let value = attribute.value else { continue }
            switch attribute.name {
            case RTPMap.attributeName, RTCPFeedback.attributeName:
                let (format, rest) = Lexer.splitFirst(value, at: Lexer.space)
                attributes[index].value = mapped(format) + (rest.map { " " + $0 } ?? "")
            case FormatParameters.attributeName:
                guard var fmtp = try? FormatParameters(attributeValue: value) else { continue }
                let isRed = redPayloadTypes.contains(fmtp.format)
                fmtp.format = mapped(fmtp.format)
                fmtp.parameters = isRed
                    ? Lexer.split(fmtp.parameters, on: 0x2F).map(mapped).joined(separator: "/")
                    : fmtp.replacingValues(of: "apt", with: mapped)
                attributes[index].value = fmtp.attributeValue
            default:
                continue
            }
        }
        // A static codec that leaves its static number needs an rtpmap to keep its meaning.
        for codec in codecs where codec.isStaticAssignment {
            guard let new = mapping[codec.payloadType], new != codec.payloadType else { continue }
            let map = RTPMap(payloadType: new, encodingName: codec.name, clockRate: codec.clockRate, channels: codec.channels)
            attributes.insert(map.attribute, at: formatAttributesEnd)
        }
    }
}

extension FormatParameters {
    /// The parameter text with the value of every `key=` changed by `transform`; all else as written.
    func replacingValues(of key: String, with transform: (String) -> String) -> String {
        Lexer.split(parameters, on: 0x3B).map { part in
            let leading = part.prefix { $0 == " " }
            let (name, value) = Lexer.splitFirst(part.dropFirst(leading.count), at: 0x3D)
            guard name.lowercased() == key.lowercased(), let value else { return part }
            return leading + name + "=" + transform(value)
        }.joined(separator: ";")
    }

    /// Sets `key` to `value`, in place when present, else appended in the text's own separator style.
    mutating func set(_ key: String, to value: String) {
        guard !parameters.isEmpty else {
            parameters = key + "=" + value
            return
        }
        var replaced = false
        var parts = Lexer.split(parameters, on: 0x3B).map { part -> String in
            let leading = part.prefix { $0 == " " }
            let (name, _) = Lexer.splitFirst(part.dropFirst(leading.count), at: 0x3D)
            guard name.lowercased() == key.lowercased() else { return part }
            replaced = true
            return leading + name + "=" + value
        }
        if !replaced {
            let spaced = parts.dropFirst().contains { $0.hasPrefix(" ") }
            parts.append((spaced ? " " : "") + key + "=" + value)
        }
        parameters = parts.joined(separator: ";")
    }
}
