/// A file a `WebSocketServer` serves over plain HTTP(S) GET on its own port, beside the
/// WebSocket: the bytes live in memory, so a server needs no directory on disk.
public struct HTTPResource: Sendable, Equatable {
    /// The path it answers, starting with "/"; "/" itself is the index.
    public var path: String
    public var contentType: String
    public var body: [UInt8]
    /// Makes the reply when a request comes (metrics, readiness) instead of `body`; it runs on
    /// the service thread, so it must be quick and must not block.
    public var generator: HTTPGenerator?

    public init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
    }

    public init(path: String, contentType: String, generator: HTTPGenerator) {
        self.init(path: path, contentType: contentType, body: [])
        self.generator = generator
    }

    /// The status and body for one request.
    func reply() -> HTTPReply {
        generator?.make() ?? HTTPReply(status: 200, body: body)
    }

    public init(path: String, contentType: String, text: String) {
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
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// A reply maker, compared by identity so that resources stay `Equatable`.
public final class HTTPGenerator: Sendable, Equatable {
    let make: @Sendable () -> HTTPReply

    public init(_ make: @escaping @Sendable () -> HTTPReply) {
        self.make = make
    }

    public static func == (lhs: HTTPGenerator, rhs: HTTPGenerator) -> Bool { lhs === rhs }
}
