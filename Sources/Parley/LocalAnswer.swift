import ICE
import Media
import SDP

/// Answers an offer the way a call does: fresh ICE credentials, a fresh DTLS certificate (or
/// fresh SDES keys), our standard audio capabilities. An offer without ICE (a desk phone, a
/// trunk) is answered as a SIP call answers it (docs/sip.md, "Media per peer"): no ICE lines,
/// SDES keys when it offers a=crypto, RTP at a placeholder address and port.
package enum LocalAnswer {
    /// Where the answer to an offer without ICE receives: a documentation address (RFC 5737),
    /// since a call puts its own socket's address and port there.
    package static let placeholderTransport = PlainTransport(address: "192.0.2.1", port: 40000)

    package enum Failure: Error, Sendable, CustomStringConvertible {
        case certificate(DTLSIdentityError)
        case negotiation(NegotiationError)
        case randomGenerator

        package var description: String {
            switch self {
            case .certificate(let error): error.description
            case .negotiation(let error): error.description
            case .randomGenerator: "could not draw SDES keys from the random generator"
            }
        }
    }

    package static func make(to offer: SessionDescription, codecOrder: CodecOrder = .offerer, direction: Direction = .sendrecv, sdes: Bool = false, allowUnencrypted: Bool = false) throws(Failure) -> Answer {
        let withoutICE = offer.isWithoutICE
        let credentials = ICECredentials.random()
        let ice = withoutICE ? ICEDescription(ufrag: "", password: "") : ICEDescription(ufrag: credentials.ufrag, password: credentials.password)
        let security: AnswerSecurity
        if sdes || withoutICE {
            var keys: [String: String] = [:]
            for suite in SDESKeys.suites {
                guard let key = SDESKeys.inlineKey(for: suite) else { throw .randomGenerator }
                keys[suite] = key
            }
            security = .sdes(keys: keys, suites: SDESKeys.suites)
        } else {
            do {
                security = .dtls(try DTLSIdentity.generate().fingerprint)
            } catch {
                throw .certificate(error)
            }
        }
        var generator = SystemRandomNumberGenerator()
        let options = AnswerOptions(
            ice: ice, security: security,
            direction: direction, codecOrder: codecOrder, sessionId: String(generator.next() >> 1),
            allowUnencrypted: allowUnencrypted, plainTransport: withoutICE ? placeholderTransport : nil)
        do {
            return try SessionDescription.answer(to: offer, options: options)
        } catch {
            throw .negotiation(error)
        }
    }
}
