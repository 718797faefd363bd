/// Registers one account's Contact at its registrar over an endpoint (RFC 3261 §10), answers
/// 401 and 407 digest challenges, refreshes the binding before it expires and removes it on
/// `unregister`. A wrong password is `SignalingError.authenticationFailed`, as a refused Verto
/// login is, so the CLI's readiness events and exit statuses are the same for both dialects.
package actor SIPRegistration {
    package let endpoint: SIPEndpoint
    package let account: SIPAccount
    /// RFC 5626's instance and flow (`+sip.instance`, `reg-id`), when the phone has one: a new
    /// flow's REGISTER with the same instance replaces the binding of the flow it follows.
    package let instance: SIPInstance?
    /// The Expires we ask for, in seconds; the registrar may grant less.
    private var requestedExpiry: UInt32
    private var authorizer: SIPDigestAuthorizer
    /// One Call-ID and From tag for every REGISTER of this registration (§10.2), CSeq rising.
    private let callID = RandomIdentifier.token(length: 20)
    private let fromTag = RandomIdentifier.token(length: 10)
    private var sequence: UInt32 = 0
    private var refresher: Task<Void, Never>?
    private let onRefreshFailure: @Sendable (SignalingError) -> Void
    /// The binding's lifetime the registrar granted last; nil when not registered.
    package private(set) var grantedExpiry: UInt32?
    /// The account's bindings at the registrar after our last REGISTER, their URIs: its 2xx
    /// lists them all (RFC 3261 §10.3), others' and ours.
    package private(set) var bindings: [String] = []

    /// Challenges answered per REGISTER at most: a 401 for the registrar and a 407 for a proxy,
    /// each with one stale nonce, before giving up.
    static let maximumChallenges = 4

    package init(endpoint: SIPEndpoint, account: SIPAccount, expiry: UInt32 = 600, instance: SIPInstance? = nil,
                 onRefreshFailure: @escaping @Sendable (SignalingError) -> Void = { _ in }) {
        self.endpoint = endpoint
        self.account = account
        self.instance = instance
        requestedExpiry = expiry
        authorizer = SIPDigestAuthorizer(credentials: account.credentials)
        self.onRefreshFailure = onRefreshFailure
    }

    /// Registers (or refreshes) and returns the lifetime granted; the next refresh is scheduled
    /// at half of it, or a minute before it ends when that is later.
    @discardableResult
    package func register() async throws(SignalingError) -> UInt32 {
        let granted = try await send(expiry: requestedExpiry)
        grantedExpiry = granted
        if instance != nil { await endpoint.registeredWithInstance() }
        scheduleRefresh(after: granted)
        return granted
    }

    /// Stops refreshing without a word to the registrar: the flow is gone, and a new registration
    /// on a new one takes over (the binding left behind expires).
    package func stopRefreshing() {
        refresher?.cancel()
        refresher = nil
    }

    /// Removes our binding (Expires: 0). Best effort: a failure is not reported, as the process
    /// is ending and the binding expires anyway.
    package func unregister() async {
        refresher?.cancel()
        refresher = nil
        guard grantedExpiry != nil else { return }
        grantedExpiry = nil
        _ = try? await send(expiry: 0)
    }

    private func send(expiry: UInt32) async throws(SignalingError) -> UInt32 {
        authorizer.beginRequest()
        var authorization: [SIPHeader] = []
        var expiry = expiry
        for _ in 0...Self.maximumChallenges {
            let request = await makeRegister(expiry: expiry, extra: authorization)
            let response: SIPMessage
            do {
                response = try await endpoint.request(request)
            } catch let failure as SIPRequestFailure {
                throw Self.signalingError(failure)
            } catch {
                throw .notReady("REGISTER: \(error)")
            }
            let status = response.status ?? 0
            switch status {
            case 200..<300:
                bindings = ((try? response.contacts()) ?? nil)?.map(\.uri) ?? []
                return expiry == 0 ? 0 : Self.granted(in: response, asked: expiry)
            case 401, 407:
                do {
                    authorization = try authorizer.answer(response, method: "REGISTER", uri: registrarURI)
                } catch {
                    throw .authenticationFailed(message: error.description)
                }
            case 403:
                throw .authenticationFailed(message: "the registrar answered 403 \(Self.reason(response)); the account may not register")
            case 423:
                // Interval Too Brief (§10.2.8): ask again for at least the registrar's minimum.
                guard let minimum = response.header(SIPHeaderName("Min-Expires")).flatMap({ UInt32($0.value.trimmingCharacters(in: .whitespaces)) }), minimum > expiry else {
                    throw .serverError(code: status, message: Self.reason(response), method: "REGISTER")
                }
                expiry = minimum
                requestedExpiry = minimum
            default:
                throw .serverError(code: status, message: Self.reason(response), method: "REGISTER")
            }
        }
        throw .authenticationFailed(message: "the registrar challenged \(Self.maximumChallenges + 1) times in a row")
    }

    private var registrarURI: String { "sip:\(account.domain)" }

    private func makeRegister(expiry: UInt32, extra: [SIPHeader]) async -> SIPMessage {
        sequence += 1
        let to = SIPNameAddress(displayName: account.displayName, uri: account.addressOfRecord)
        let contact = "<\(await endpoint.bindingURI(user: account.user))>" + (instance?.contactParameters ?? "")
        let supported = instance == nil ? [] : [SIPHeader(.supported, SIPInstance.supported)]
        return await endpoint.outOfDialogRequest(
            "REGISTER", to: registrarURI, toHeader: to.description, from: account, fromTag: fromTag, callID: callID, sequence: sequence,
            contact: contact, extra: supported + [SIPHeader(.expires, String(expiry))] + extra)
    }

    private func scheduleRefresh(after granted: UInt32) {
        refresher?.cancel()
        guard granted > 0 else { return }
        let wait = max(Double(granted) / 2, Double(granted) - 60)
        // Unstructured: the refresh waits half the binding's lifetime; unregister or the next register cancels it.
        refresher = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(wait))) != nil, let self else { return }
            do throws(SignalingError) {
                try await self.register()
            } catch {
                self.onRefreshFailure(error)
            }
        }
    }

    /// The lifetime the registrar gave our Contact: its `expires` parameter, else the Expires
    /// field, else what we asked for (§10.2.4).
    private static func granted(in response: SIPMessage, asked: UInt32) -> UInt32 {
        let fromContact = (try? response.contacts())??.compactMap { $0.parameters["expires"].flatMap { UInt32($0) } }.min()
        return fromContact ?? ((try? response.expires()) ?? nil) ?? asked
    }

    package static func reason(_ response: SIPMessage) -> String {
        if case .response(_, let reason) = response.startLine { return String(reason.prefix(120)) }
        return ""
    }

    package static func signalingError(_ failure: SIPRequestFailure, method: String = "REGISTER") -> SignalingError {
        switch failure {
        case .timedOut(let timeout): .requestTimedOut(method: method, after: timeout)
        case .transport(let error): .sipTransport(error)
        case .unsendable(let error): .invalidConfiguration(error.description)
        }
    }
}
