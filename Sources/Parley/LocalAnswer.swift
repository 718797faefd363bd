import ICE
import Media
import SDP

/// Answers an offer the way a call does: fresh ICE credentials, a fresh DTLS certificate (or
/// fresh SDES keys), our standard audio capabilities.
package enum LocalAnswer {
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
        let credentials = ICECredentials.random()
        let security: AnswerSecurity
        if sdes {
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
            ice: ICEDescription(ufrag: credentials.ufrag, password: credentials.password), security: security,
            direction: direction, codecOrder: codecOrder, sessionId: String(generator.next() >> 1),
            allowUnencrypted: allowUnencrypted)
        do {
            return try SessionDescription.answer(to: offer, options: options)
        } catch {
            throw .negotiation(error)
        }
    }
}
