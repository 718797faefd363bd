import Foundation
@testable import Signaling
import TestSupport
import Testing

/// Our client certificate's files are checked before anything connects: each refusal names the
/// file, never what is in it.
@Suite struct TLSClientCertificateTests {
    @Test func aCertificateWithItsKeyPassesAndEveryWrongPairIsSaidInWords() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        try TLSClientCertificate(certificatePath: certificates.clientCertificatePath, privateKeyPath: certificates.clientKeyPath).check()

        let missing = certificates.directory.appendingPathComponent("absent.pem").path
        #expect(throws: TLSClientCertificateError.unreadable(.certificate, path: missing)) {
            try TLSClientCertificate(certificatePath: missing, privateKeyPath: certificates.clientKeyPath).check()
        }
        #expect(throws: TLSClientCertificateError.unreadable(.privateKey, path: certificates.directory.path)) {
            try TLSClientCertificate(certificatePath: certificates.clientCertificatePath, privateKeyPath: certificates.directory.path).check()
        }
        #expect(throws: TLSClientCertificateError.mismatched(certificatePath: certificates.clientCertificatePath, privateKeyPath: certificates.otherClientKeyPath)) {
            try TLSClientCertificate(certificatePath: certificates.clientCertificatePath, privateKeyPath: certificates.otherClientKeyPath).check()
        }
        let swapped = #expect(throws: TLSClientCertificateError.self) {
            try TLSClientCertificate(certificatePath: certificates.clientKeyPath, privateKeyPath: certificates.clientCertificatePath).check()
        }
        guard case .notACertificate(let path, _) = try #require(swapped) else { Issue.record("\(String(describing: swapped))"); return }
        #expect(path == certificates.clientKeyPath)
        let key = try String(contentsOfFile: certificates.clientKeyPath, encoding: .utf8)
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first)
        #expect(!"\(try #require(swapped))".contains(keyLine))

        // An encrypted key is refused rather than prompted for on the terminal.
        let encrypted = certificates.directory.appendingPathComponent("encrypted.key").path
        try await run("/usr/bin/openssl", ["pkey", "-in", certificates.clientKeyPath, "-aes256", "-passout", "pass:secret", "-out", encrypted],
                      in: certificates.directory)
        let locked = #expect(throws: TLSClientCertificateError.self) {
            try TLSClientCertificate(certificatePath: certificates.clientCertificatePath, privateKeyPath: encrypted).check()
        }
        guard case .notAPrivateKey(let lockedPath, _) = try #require(locked) else { Issue.record("\(String(describing: locked))"); return }
        #expect(lockedPath == encrypted)
    }
}
