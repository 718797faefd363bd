/// A file a `WebSocketServer` serves over plain HTTP(S) GET on its own port, beside the
/// WebSocket: the bytes live in memory, so a server needs no directory on disk.
package struct HTTPResource: Sendable, Equatable {
    /// The path it answers, starting with "/"; "/" itself is the index.
    package var path: String
    package var contentType: String
    package var body: [UInt8]
    /// Makes the reply when a request comes (metrics, readiness) instead of `body`; it runs on
    /// the service thread, so it must be quick and must not block.
    package var generator: HTTPGenerator?

    package init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
    }

    package init(path: String, contentType: String, generator: HTTPGenerator) {
        self.init(path: path, contentType: contentType, body: [])
        self.generator = generator
    }

    /// The status and body for one request.
    func reply() -> HTTPReply {
        generator?.make() ?? HTTPReply(status: 200, body: body)
    }

    package init(path: String, contentType: String, text: String) {
        self.init(path: path, contentType: contentType, body: Array(text.utf8))
    }

    /// Headers every served file carries: nothing loads from another origin, and nothing caches
    /// a page that a new Parley build may change.
    static let fixedHeaders: [(name: String, value: String)] = [
        ("cache-control:", "no-store"),
        ("x-content-type-options:", "nosniff"),
        ("content-security-policy:", "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    ]
}

/// One generated HTTP reply: 200 with a body, or, say, 503 while a bot is not ready.
package struct HTTPReply: Sendable, Equatable {
    package var status: Int
    package var body: [UInt8]

    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// A reply maker, compared by identity so that resources stay `Equatable`.
package final class HTTPGenerator: Sendable, Equatable {
    let make: @Sendable () -> HTTPReply

    package init(_ make: @escaping @Sendable () -> HTTPReply) {
        self.make = make
    }

    package static func == (lhs: HTTPGenerator, rhs: HTTPGenerator) -> Bool { lhs === rhs }
}
