import Signaling
import Switch
import TestSupport
import Testing

@Suite(.leakChecked) struct TLSTests {
    private func secureSwitch(_ certificates: TestCertificates) async throws -> EmbeddedSwitch {
        try await EmbeddedSwitch.start(
            listen: WebSocketURL(parsing: "wss://127.0.0.1:0"),
            configuration: SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "alice-secret")]),
            certificatePath: certificates.serverCertificatePath, privateKeyPath: certificates.serverKeyPath)
    }

    private func login(to url: WebSocketURL, tls: TLSVerification) async throws {
        var options = WebSocketOptions()
        options.tls = tls
        let client = VertoClient(url: url, configuration: VertoConfiguration(credentials: .password(login: "alice", password: "alice-secret")),
                                 socketOptions: options)
        try await client.connect()
        await client.disconnect()
    }

    @Test func wssVerifiedWithTheRightCALogsIn() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let embedded = try await secureSwitch(certificates)
        afterTest { await embedded.stop() }
        #expect(embedded.url.secure)
        try await login(to: embedded.url, tls: .customCA(path: certificates.caPath))
    }

    @Test(arguments: ["other CA", "system store"])
    func wssWithACertificateNoTrustedCASignedIsRefused(trust: String) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let embedded = try await secureSwitch(certificates)
        afterTest { await embedded.stop() }
        let tls: TLSVerification = trust == "other CA" ? .customCA(path: certificates.otherCAPath) : .systemTrustStore
        await #expect {
            try await login(to: embedded.url, tls: tls)
        } throws: { error in
            guard case SignalingError.socket(.tlsFailed) = error else { return false }
            return true
        }
        #expect(await embedded.onlineLogins.isEmpty)
    }

    @Test func skippingVerificationConnectsToTheSelfSignedServer() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let embedded = try await secureSwitch(certificates)
        afterTest { await embedded.stop() }
        try await login(to: embedded.url, tls: .insecureSkipVerification)
    }

    @Test func aMissingCAFileIsATypedTLSError() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let embedded = try await secureSwitch(certificates)
        afterTest { await embedded.stop() }
        await #expect {
            try await login(to: embedded.url, tls: .customCA(path: certificates.directory.appendingPathComponent("absent.pem").path))
        } throws: { error in
            guard case SignalingError.socket(.tlsFailed) = error else { return false }
            return true
        }
    }
}
