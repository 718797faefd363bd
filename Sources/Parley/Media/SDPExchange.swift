import Foundation
import SDP

/// One SDP a call sent or received, as `MediaOptions.sdpObserver` sees it: the exact text that
/// went to (or came from) the signalling, after the munging rules for what we send and before
/// those for what we receive.
public struct SDPExchange: Sendable {
    /// What the SDP is in the call's offer/answer exchanges.
    public enum Kind: String, Sendable, Codable {
        /// The call's first offer and answer.
        case offer, answer
        /// Our ICE-restart offer (after a network change) and the far end's answer to it.
        case restartOffer = "restart-offer"
        case restartAnswer = "restart-answer"
        /// Our re-offer that only changes the direction (hold: a=sendonly, unhold: a=sendrecv)
        /// and the far end's answer to it.
        case holdOffer = "hold-offer"
        case holdAnswer = "hold-answer"
        /// A re-offer from the far end (its ICE restart, hold, or re-attach relayed by the server) and our answer to it.
        case reoffer, reanswer
        /// The server's re-offer after we logged in again (Verto attach), and our answer.
        case attachOffer = "attach-offer"
        case attachAnswer = "attach-answer"

        public var type: SDPType {
            switch self {
            case .offer, .restartOffer, .holdOffer, .reoffer, .attachOffer: return .offer
            case .answer, .restartAnswer, .holdAnswer, .reanswer, .attachAnswer: return .answer
            }
        }
    }

    public let direction: SDPDirection
    public let kind: Kind
    public let sdp: String
    public let time: Date

    public init(direction: SDPDirection, kind: Kind, sdp: String, time: Date = Date()) {
        self.direction = direction
        self.kind = kind
        self.sdp = sdp
        self.time = time
    }
}
