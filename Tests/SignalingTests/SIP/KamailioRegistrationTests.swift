import Foundation
@testable import Signaling
import TestSupport
import Testing

/// REGISTER against the real Kamailio (deploy/kamailio/): its digest challenge answered over
/// UDP, TCP and WebSocket, a wrong password a failed login, the binding removed on unregister.
@Suite(.serialized, .tags(.realPeer)) struct KamailioRegistrationTests {
    private func register(_ url: String, user: String, password: String, _ body: (SIPRegistration) async throws -> Void) async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: url.replacingOccurrences(of: "PORT", with: String(kamailio.port))))
        try await endpoint.open()
        let registration = SIPRegistration(endpoint: endpoint, account: SIPAccount(user: user, domain: "parley.test", password: password), expiry: 120)
        do {
            try await body(registration)
        } catch {
            await endpoint.close()
            throw error
        }
        await endpoint.close()
    }

    @Test(arguments: ["sip:127.0.0.1:PORT", "sip:127.0.0.1:PORT;transport=tcp", "ws://127.0.0.1:PORT/"])
    func registersAndUnregistersWithDigest(_ url: String) async throws {
        try await register(url, user: "alice", password: "alice-secret") { registration in
            let granted = try await registration.register()
            #expect(granted == 120)
            // A refresh reuses the registration's Call-ID and is challenged and accepted again.
            let refreshed = try await registration.register()
            #expect(refreshed == 120)
            await registration.unregister()
            #expect(await registration.grantedExpiry == nil)
        }
    }

    @Test func aWrongPasswordIsAFailedLogin() async throws {
        try await register("sip:127.0.0.1:PORT", user: "alice", password: "not-alices") { registration in
            await #expect {
                try await registration.register()
            } throws: { error in
                guard let error = error as? SignalingError, case .authenticationFailed = error else { return false }
                return !error.description.contains("not-alices")
            }
        }
    }
}
