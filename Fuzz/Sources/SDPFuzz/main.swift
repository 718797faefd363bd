import FuzzSupport
import SDP

/// Beyond "never crash", on every input the parser accepts: serialization gives back the same
/// bytes, re-parsing gives the same warnings, and munging and answering produce descriptions
/// that parse again.
func fuzzSDP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let (sdp, warnings) = try? SDPParser().parseReportingWarnings(bytes: bytes) else { return 0 }
    fuzzCheck(SDPSerializer.bytes(sdp) == bytes, "round trip changed the bytes")
    fuzzCheck((try? SDPParser().parseReportingWarnings(bytes: SDPSerializer.bytes(sdp)).warnings) == warnings, "re-parse changed the warnings")

    for media in sdp.media {
        _ = media.codecs
        _ = media.attributes.values(Candidate.self)
    }
    _ = sdp.redacted().text

    var munged = sdp
    var request = MungeRequest()
    request.payloadReplacements = [(CodecSelector(name: "opus", clockRate: 48000, channels: 2), 105), (CodecSelector(name: "PCMU"), 100)]
    request.codecPriority = [CodecSelector(name: "PCMU"), CodecSelector(name: "opus"), CodecSelector(name: "telephone-event"), CodecSelector(name: "red")]
    request.bandwidths = [(kind: "audio", kbps: 64)]
    request.opusPreset = .preferred
    request.trickle = size % 2 == 0
    request.stripCandidates = size % 3 == 0
    if (try? request.apply(to: &munged)) != nil {
        fuzzCheck((try? SDPParser().parse(munged.text)) != nil, "munged output does not parse")
    }

    let options = AnswerOptions(
        ice: ICEDescription(ufrag: "fuzzUfrag", password: "fuzzPasswordfuzzPassword"),
        security: .dtls(Fingerprint(hashFunction: "sha-256", value: "00:11")), sessionId: "1", allowUnencrypted: true)
    if let answer = try? SessionDescription.answer(to: sdp, options: options) {
        fuzzCheck((try? SDPParser().parse(answer.description.text)) != nil, "answer does not parse")
    }
    return 0
}

runFuzzer(fuzzSDP)
