extension SIPEndpoint {
    /// A final response the transaction layer passed after the first of its INVITE (RFC 6026's
    /// Accepted state, until Timer M): the far end repeats its 2xx because our ACK was lost on
    /// UDP, and gets that ACK again; or another fork answered too (RFC 3261 §13.2.2.4), and its
    /// dialog is acknowledged and ended with BYE at once, as only the first answer makes the call.
    func answerRepeated(_ response: SIPMessage, key: SIPTransactionKey) {
        switch acceptedInvites.repeated(response, key: key) {
        case .acknowledgeAgain(let ack):
            sendOutsideTransaction(ack)
        case .fork(let invite):
            endFork(answering: invite, with: response)
        case .nothing:
            break
        }
    }

    private func endFork(answering invite: SIPMessage, with response: SIPMessage) {
        guard var dialog = try? SIPDialog(uacRequest: invite, response: response), let sequence = try? invite.cseq().number else { return }
        dialog.confirm()
        sendOutsideTransaction(dialog.request("ACK", via: newVia(), sequence: sequence))
        let bye = dialog.request("BYE", via: newVia())
        // Unstructured: the fork's BYE awaits its response (at most Timer F) while the flow's events go on.
        Task { _ = try? await self.request(bye) }
    }
}
