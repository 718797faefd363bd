import CWebSockets

/// What failed in a TLS handshake, in words a person can act on (OpenSSL's own text for a
/// failed handshake is an error code).
enum TLSFailure {
    static let caHint = "to trust a private or self-signed CA, give its PEM file (parley: --ca-file)"
    static let notTLSMessage = "the server sent no TLS certificate: it does not seem to speak TLS (a plain ws:// server?) or refused our TLS versions"

    static func describe(verifyError code: Int32, host: String) -> String {
        switch code {
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            "the server's certificate is self-signed, and not trusted; \(caHint)"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_CERT_UNTRUSTED,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            "the server's certificate comes from an untrusted issuer; \(caHint)"
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            "the server's certificate is not for \(host) (name mismatch): connect with a name the certificate holds"
        case X509_V_ERR_CERT_HAS_EXPIRED:
            "the server's certificate has expired"
        case X509_V_ERR_CERT_NOT_YET_VALID:
            "the server's certificate is not valid yet (is this host's clock right?)"
        default:
            "the server's certificate was refused: \(String(cString: X509_verify_cert_error_string(Int(code))))"
        }
    }

    static let certificateHint = "give a certificate the server trusts (parley: --cert-file, --key-file)"

    /// A fatal alert the server sent, as OpenSSL words it ("tlsv13 alert certificate required"),
    /// said as what to do when it is about our client certificate; any other reason unchanged.
    /// Under TLS 1.3 the server judges our certificate after our side of the handshake is done,
    /// so its alert arrives in place of the first record read.
    static func describeAlert(_ reason: String) -> String {
        let lowered = reason.lowercased()
        if lowered.contains("certificate required") {
            return "the server requires a client certificate and we gave none; \(certificateHint)"
        }
        if ["unknown ca", "bad certificate", "certificate unknown", "unsupported certificate", "certificate revoked", "certificate expired"]
            .contains(where: lowered.contains) {
            return "the server refused our client certificate (\(reason)); \(certificateHint)"
        }
        if lowered.contains("alert handshake failure") {
            return "the server ended the handshake (handshake failure): it may require a client certificate; \(certificateHint)"
        }
        return reason
    }

    /// A fatal alert the server sent about our client certificate, by its code (RFC 8446 §6.2),
    /// in the words `describeAlert` uses; nil for another or none.
    static func describe(alert code: Int32) -> String? {
        switch code {
        case 116: describeAlert("certificate required")
        case 40: describeAlert("alert handshake failure")
        case 42: describeAlert("bad certificate")
        case 44: describeAlert("unsupported certificate")
        case 45: describeAlert("certificate expired")
        case 46: describeAlert("certificate unknown")
        case 48: describeAlert("unknown ca")
        default: nil
        }
    }

    /// OpenSSL's words for a peer that answered the ClientHello with something other than TLS.
    static func notTLS(_ lowered: String) -> Bool {
        ["wrong version number", "packet length too long", "unknown protocol", "record layer failure", "http request"].contains(where: lowered.contains)
    }
}
