import Logging
import Signaling

/// 3xx to our INVITE (docs/sip.md, "Redirects"): followed with a new INVITE to the Contact that
/// `SIPRedirects` picks, our offer unchanged (nobody answered it yet); the call's `transfer`
/// events say where it went. Not followed (`DialOptions.followRedirects` false, a loop, too
/// many), the 3xx ends the call as any final failure does.
extension SIPCallSignalling {
    /// True when a new INVITE went out for this 3xx.
    func followsRedirect(_ response: SIPMessage, status: Int) async -> Bool {
        guard (300..<400).contains(status), dialog == nil, !cancelled, !ended else { return false }
        let phrase = "\(status) \(SIPRegistration.reason(response))"
        let named = ((try? response.contacts()) ?? nil)?.first?.uri ?? ""
        guard var redirects else {
            await call?.handle(.transferProgress(.redirectNotFollowed(destination: named, reason: "\(phrase): redirects are not followed")))
            return false
        }
        let target: String
        do {
            target = try redirects.next(from: response)
        } catch {
            logger.info("SIP call \(sipCallID): \(phrase) not followed: \(error)")
            await call?.handle(.transferProgress(.redirectNotFollowed(destination: named, reason: "\(phrase): \(error)")))
            return false
        }
        self.redirects = redirects
        logger.info("SIP call \(sipCallID): \(phrase) redirects the INVITE to \(target)")
        await call?.handle(.transferProgress(.redirected(destination: target, response: phrase)))
        let sdp = localSDP ?? ""
        // Unstructured: the redirected INVITE awaits its final response (at most Timer B), as the first did.
        Task { await self.send(to: target, sdp: sdp) }
        return true
    }
}
