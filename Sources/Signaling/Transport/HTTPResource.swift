/// A file a `WebSocketServer` serves over plain HTTP(S) GET on its own port, beside the
/// WebSocket: the bytes live in memory, so a server needs no directory on disk.
public struct HTTPResource: Sendable, Equatable {
    /// The path it answers, starting with "/"; "/" itself is the index.
    public var path: String
    public var contentType: String
    public var body: [UInt8]

    public init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
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
