/// What a media session's clock side counts: what it sent and what it could not send, what it
/// played and what of that it made up, and the digits its in-band detector heard. The receive
/// side counts its own (`MediaReceiver`). Every frame or report that should have left and did not
/// is a `sendFailure`: the call goes on, the count shows it.
///
/// A value the session keeps under its clock lock; plain integer steps, no allocation.
struct SessionCounters {
    private(set) var packetsSent = 0
    /// RTP payload bytes (RFC 3550 sender octet count).
    private(set) var bytesSent = 0
    private(set) var sendFailures = 0
    private(set) var preEncodedFramesSent = 0
    private(set) var concealedSamples = 0
    private(set) var totalSamplesPlayed = 0
    private(set) var inBandDigitsReceived = 0
    /// Payload types already sent at least once.
    private var sentPayloadTypes = PayloadTypeSet()

    /// An RTP packet left. True when it is the first of its payload type (a `firstRTPSent` event).
    mutating func sent(payloadBytes: Int, payloadType: UInt8) -> Bool {
        packetsSent += 1
        bytesSent += payloadBytes
        return sentPayloadTypes.insert(payloadType)
    }

    /// A frame or report that should have left and did not: not encoded, not written, or refused
    /// by the transport.
    mutating func sendFailed() {
        sendFailures += 1
    }

    mutating func sentPreEncodedFrame() {
        preEncodedFramesSent += 1
    }

    mutating func played(samples: Int) {
        totalSamplesPlayed += samples
    }

    mutating func concealed(samples: Int) {
        concealedSamples += samples
    }

    mutating func heardInBandDigit() {
        inBandDigitsReceived += 1
    }
}
