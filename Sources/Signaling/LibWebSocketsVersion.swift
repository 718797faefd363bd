import CWebSockets

/// The libwebsockets actually loaded into this process.
package enum LibWebSocketsVersion {
    package static func runtime() -> String {
        guard let text = lws_get_library_version() else { return "unknown" }
        return String(cString: text)
    }
}
