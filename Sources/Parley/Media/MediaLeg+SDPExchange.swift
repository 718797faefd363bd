import Foundation
import SDP

/// The one place a call's SDPs pass through on their way out and in: the munging rules of
/// `MediaOptions.munging` apply here, and `MediaOptions.sdpObserver` sees each text.
extension MediaLeg {
    /// Applies the rules for an SDP of this direction and type, logging their warnings.
    func munge(_ description: inout SessionDescription, direction: SDPDirection, type: SDPType) throws(ParleyError) {
        guard !options.munging.isEmpty else { return }
        do {
            for warning in try options.munging.apply(to: &description, direction: direction, type: type) {
                logger.warning("SDP munging: \(warning)")
            }
        } catch {
            throw ParleyError(kind: .configuration, message: "SDP munging: \(error)")
        }
    }

    /// Our SDP as it leaves: already munged; the observer sees the exact text.
    func sent(_ description: SessionDescription, as kind: SDPExchange.Kind) -> String {
        let text = description.text
        options.sdpObserver?(SDPExchange(direction: .sent, kind: kind, sdp: text))
        return text
    }

    /// The far end's SDP as it arrives: the observer sees the exact text, then it is parsed and
    /// the rules for what we receive apply.
    func received(_ text: String, as kind: SDPExchange.Kind) throws(ParleyError) -> SessionDescription {
        options.sdpObserver?(SDPExchange(direction: .received, kind: kind, sdp: text))
        var description = try Self.parse(text)
        try munge(&description, direction: .received, type: kind.type)
        return description
    }
}
