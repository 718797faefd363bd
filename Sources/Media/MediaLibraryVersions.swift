import COpenSSL
import COpus
import CSRTP

/// Versions of the media libraries actually loaded into this process, as they report themselves.
package enum MediaLibraryVersions {
    package static func libsrtp() -> String {
        guard let text = srtp_get_version_string() else { return "unknown" }
        return String(cString: text)
    }

    package static func libopus() -> String {
        guard let text = opus_get_version_string() else { return "unknown" }
        return String(cString: text)
    }

    package static func openssl() -> String {
        guard let text = OpenSSL_version(OPENSSL_VERSION) else { return "unknown" }
        return String(cString: text)
    }
}
