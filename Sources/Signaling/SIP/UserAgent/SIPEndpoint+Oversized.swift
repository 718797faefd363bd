extension SIPEndpoint {
    /// RFC 3261 §18.1.1: a request within 200 bytes of the path MTU (1500 when unknown) belongs
    /// on a congestion-controlled transport. Our flow is one connection to the server, so such a
    /// request still goes as one datagram (docs/sip.md, "Not yet"); this tells its owner the
    /// first time, so that it can say so once and point at `;transport=tcp`.
    package static let largestUnfragmentedRequest = 1300

    /// The size of `request` when it is the flow's first over UDP above 1300 bytes; nil otherwise.
    package func firstOversized(_ request: SIPMessage) -> Int? {
        guard !server.transport.isReliable, !oversizedReported else { return nil }
        let size = request.serialized.count
        guard size > Self.largestUnfragmentedRequest else { return nil }
        oversizedReported = true
        return size
    }
}
