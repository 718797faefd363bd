import Signaling

/// One call's requests from the server (and the ACKs of its 2xx), handled in order by a task of
/// the call's own, as a `VoiceClient`'s calls take their events: the phone's one router hands
/// each over and goes on to the next. Handled in the router itself, a call ending on BYE (its
/// media stopped, its streams finished) held up every other call's INVITE behind it; at 300 calls
/// through Kamailio over UDP, 20 new and 20 ending a second, setup p95 was 400 ms against 14 ms
/// over Verto (docs/sip.md, "Calls at scale").
struct SIPCallInbox: Sendable {
    private let sink: AsyncStream<SIPIncomingRequest>.Continuation

    init(for signalling: SIPCallSignalling) {
        let (requests, sink) = AsyncStream.makeStream(of: SIPIncomingRequest.self)
        self.sink = sink
        // Unstructured: the call's requests in order for the call's life; `close` (the phone forgetting the call) ends it.
        Task {
            for await incoming in requests {
                switch incoming {
                case .request(let key, let request): await signalling.received(request, key: key)
                case .ack(let ack): await signalling.receivedACK(ack)
                }
            }
        }
    }

    func deliver(_ incoming: SIPIncomingRequest) {
        sink.yield(incoming)
    }

    func close() {
        sink.finish()
    }
}
