import Foundation
@testable import Signaling
import TestSupport
import Testing

/// REGISTER against the real Kamailio (deploy/kamailio/): its digest challenge answered over
/// UDP, TCP, TLS and WebSocket, a wrong password a failed login, the binding removed on
/// unregister; a TLS server whose certificate we do not trust is refused before anything is sent.
@Suite(.serialized, .tags(.realPeer)) struct KamailioRegistrationTests {
    private func register(_ url: String, user: String, password: String, _ body: (SIPRegistration) async throws -> Void) async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        try await register(SIPServerAddress(parsing: url.replacingOccurrences(of: "PORT", with: String(kamailio.port))), user: user, password: password, body)
    }

    private func register(_ server: SIPServerAddress, options: SIPFlowOptions = SIPFlowOptions(), user: String, password: String,
                          _ body: (SIPRegistration) async throws -> Void) async throws {
        let endpoint = SIPEndpoint(server: server, options: options)
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

    /// RFC 5626: a flow is lost (closed without unregistering, as a broken connection leaves
    /// it) and a new flow registers. With the same `+sip.instance` and `reg-id` Kamailio's
    /// registrar replaces the old binding; without them it keeps both until the old one expires.
    @Test(arguments: [true, false])
    func aNewFlowsRegisterWithTheSameInstanceReplacesTheBinding(withInstance: Bool) async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let server = try SIPServerAddress(parsing: "sip:127.0.0.1:\(kamailio.port);transport=tcp")
        let account = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let instance = withInstance ? SIPInstance.random() : nil
        var bound: [String] = []
        for _ in 0..<2 {
            let endpoint = SIPEndpoint(server: server)
            try await endpoint.open()
            let registration = SIPRegistration(endpoint: endpoint, account: account, expiry: 120, instance: instance)
            #expect(try await registration.register() == 120)
            bound.append(await endpoint.bindingURI(user: "alice"))
            // With the instance, the new flow's binding is the only one; without it, each flow's stays.
            #expect(await registration.bindings.sorted() == (withInstance ? [bound[bound.count - 1]] : bound.sorted()))
            await registration.stopRefreshing()
            await endpoint.close()
        }
        #expect(bound[0] != bound[1], "the second flow has a port of its own")
    }

    /// Kamailio with a TLS listener whose certificate the throwaway CA signed for 127.0.0.1.
    private func overTLS(_ body: (SIPServerAddress, TestCertificates) async throws -> Void) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let kamailio = try await KamailioRegistrar(tlsCertificate: (certificates.serverCertificatePath, certificates.serverKeyPath))
        defer { kamailio.stop() }
        try await body(SIPServerAddress(parsing: "sips:127.0.0.1:\(try #require(kamailio.tlsPort))"), certificates)
    }

    @Test func registersRefreshesAndUnregistersOverTLS() async throws {
        try await overTLS { server, certificates in
            var options = SIPFlowOptions()
            options.tls = .customCA(path: certificates.caPath)
            try await register(server, options: options, user: "alice", password: "alice-secret") { registration in
                let granted = try await registration.register()
                #expect(granted == 120)
                let refreshed = try await registration.register()
                #expect(refreshed == 120)
                await registration.unregister()
                #expect(await registration.grantedExpiry == nil)
            }
        }
    }

    @Test(arguments: ["other CA", "system store"])
    func aTLSServerWithAnUntrustedCertificateIsRefused(trust: String) async throws {
        try await overTLS { server, certificates in
            var options = SIPFlowOptions()
            options.tls = trust == "other CA" ? .customCA(path: certificates.otherCAPath) : .systemTrustStore
            let endpoint = SIPEndpoint(server: server, options: options)
            await #expect {
                try await endpoint.open()
            } throws: { error in
                guard case SIPTransportError.tlsFailed(let reason) = error else { return false }
                return reason.contains("untrusted issuer") || reason.contains("self-signed")
            }
            await endpoint.close()
        }
    }

    /// Kamailio whose second TLS listener requires a client certificate the test CA signed.
    private func overMutualTLS(_ body: (Int, TestCertificates) async throws -> Void) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let kamailio = try await KamailioRegistrar(tlsCertificate: (certificates.serverCertificatePath, certificates.serverKeyPath),
                                                   clientCA: certificates.caPath)
        defer { kamailio.stop() }
        try await body(try #require(kamailio.mutualTLSPort), certificates)
    }

    @Test(arguments: ["sips:127.0.0.1:PORT", "wss://127.0.0.1:PORT/"])
    func registersWithAClientCertificateTheServerRequires(_ url: String) async throws {
        try await overMutualTLS { port, certificates in
            var options = SIPFlowOptions()
            options.tls = .customCA(path: certificates.caPath)
            options.clientCertificate = TLSClientCertificate(certificatePath: certificates.clientCertificatePath, privateKeyPath: certificates.clientKeyPath)
            let server = try SIPServerAddress(parsing: url.replacingOccurrences(of: "PORT", with: String(port)))
            try await register(server, options: options, user: "alice", password: "alice-secret") { registration in
                let granted = try await registration.register()
                #expect(granted == 120)
                await registration.unregister()
            }
        }
    }

    /// Without a certificate, or with one from another CA, the server ends the handshake (under
    /// TLS 1.3 after ours is done, so it may be the REGISTER that hears it): a TLS failure that
    /// says what to give.
    @Test(arguments: ["sips none", "sips other CA", "wss none", "wss other CA"])
    func aServerRequiringAClientCertificateRefusesNoneAndAnotherCAs(_ case: String) async throws {
        try await overMutualTLS { port, certificates in
            var options = SIPFlowOptions()
            options.tls = .customCA(path: certificates.caPath)
            if `case`.hasSuffix("other CA") {
                options.clientCertificate = TLSClientCertificate(certificatePath: certificates.otherClientCertificatePath,
                                                                 privateKeyPath: certificates.otherClientKeyPath)
            }
            let server = try SIPServerAddress(parsing: `case`.hasPrefix("wss") ? "wss://127.0.0.1:\(port)/" : "sips:127.0.0.1:\(port)")
            let endpoint = SIPEndpoint(server: server, options: options)
            defer { Task { await endpoint.close() } }
            var failure: SIPTransportError?
            do {
                try await endpoint.open()
                let registration = SIPRegistration(endpoint: endpoint, account: SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret"),
                                                   expiry: 120)
                do {
                    _ = try await registration.register()
                    Issue.record("registered without the certificate the server requires")
                } catch {
                    guard let signaling = error as? SignalingError, case .sipTransport(let transport) = signaling else { Issue.record("not a transport failure: \(error)"); return }
                    failure = transport
                }
            } catch {
                failure = try #require(error as? SIPTransportError)
            }
            guard case .tlsFailed(let reason) = try #require(failure) else { Issue.record("not a TLS failure: \(String(describing: failure))"); return }
            #expect(reason.contains("--cert-file"), "\(reason)")
            if `case`.hasSuffix("none"), `case`.hasPrefix("sips") { #expect(reason.contains("requires a client certificate"), "\(reason)") }
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
