/// Cuts SIP messages out of a byte stream (TCP, TLS): each message's end is its Content-Length,
/// which a stream message must carry (RFC 3261 §18.3). Between messages, RFC 5626's keep-alives:
/// a double CRLF is a ping, a single CRLF a pong (§4.4.1). Limits are checked as bytes arrive:
/// a head that grows past the message limit, or a Content-Length past the body limit, fails before
/// more is buffered. After an error the stream's framing is lost and the connection must close;
/// the framer repeats the error.
package struct SIPStreamFramer: Sendable {
    package enum Item: Sendable, Equatable {
        case message(SIPMessage)
        case keepAlivePing
        case keepAlivePong
    }

    package let limits: SIPLimits
    private var buffer: [UInt8] = []
    /// How far the search for the end of the head has looked, so bytes are scanned once.
    private var scanned = 0
    /// The head of the message whose body is still arriving.
    private var head: SIPHeadParser?
    private var failure: SIPParseError?

    package init(limits: SIPLimits = SIPLimits()) { self.limits = limits }

    /// Bytes held for a message not yet complete.
    package var bufferedCount: Int { buffer.count }

    package mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next complete item, nil when more bytes are needed.
    package mutating func next() throws(SIPParseError) -> Item? {
        if let failure { throw failure }
        do {
            return try cut()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func cut() throws(SIPParseError) -> Item? {
        if head == nil {
            if buffer.starts(with: [0x0D, 0x0A, 0x0D, 0x0A]) {
                consume(4)
                return .keepAlivePing
            }
            // A lone CRLF is a pong; three bytes CR LF CR may be a ping still arriving.
            if buffer.starts(with: [0x0D, 0x0A]) {
                if buffer.count == 3, buffer[2] == 0x0D { return nil }
                consume(2)
                return .keepAlivePong
            }
            guard let end = headEnd() else {
                guard buffer.count <= limits.maximumMessageSize else {
                    throw SIPParseError(.messageTooLarge, line: 0, "a message head of more than \(limits.maximumMessageSize) bytes")
                }
                return nil
            }
            guard end <= limits.maximumMessageSize else {
                throw SIPParseError(.messageTooLarge, line: 0, "a message head of more than \(limits.maximumMessageSize) bytes")
            }
            let parsed = try SIPHeadParser.parse(Array(buffer[..<end]), limits: limits)
            guard let length = parsed.contentLength else {
                throw SIPParseError(.missingHeader, line: 0, "no Content-Length, which a message on a stream must carry")
            }
            guard end + length <= limits.maximumMessageSize else {
                throw SIPParseError(.messageTooLarge, line: parsed.contentLengthLine,
                                    "the message would be \(end + length) bytes, over the limit of \(limits.maximumMessageSize)")
            }
            head = parsed
        }
        guard let parsed = head, let length = parsed.contentLength, buffer.count >= parsed.bodyStart + length else { return nil }
        var message = parsed.message
        message.body = Array(buffer[parsed.bodyStart..<parsed.bodyStart + length])
        consume(parsed.bodyStart + length)
        head = nil
        return .message(message)
    }

    /// Just past the empty line that ends the head (CRLF CRLF, or LF LF from a lenient peer).
    private mutating func headEnd() -> Int? {
        var index = max(scanned, 0)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return index + 2 }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return index + 3 }
                if index + 2 >= buffer.count { break }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    private mutating func consume(_ count: Int) {
        buffer.removeFirst(count)
        scanned = 0
    }
}
