import Foundation
import Logging
import Parley

/// The one login every call of a `parley load` run is placed on: a Verto `VoiceClient`, or a
/// SIP account registered by a `SIPPhone` (docs/sip.md, "Calls"), each with its one socket.
struct LoadLogin: Sendable {
    let dial: LoadCall.Dial
    /// Logs out (or unregisters) and closes the socket; calls still up end with it.
    let close: @Sendable () async -> Void

    /// Connects and logs in, or registers; throws what the first login attempt met.
    static func open(_ connection: ConnectionOptions, media: MediaOptions, logger: Logger, presenter: CallPresenter) async throws(ParleyError) -> LoadLogin {
        if connection.speaksSIP {
            let account = try connection.sipAccount()
            presenter.note("registering \(account.user)@\(account.domain) at \(account.server)")
            let phone = try await SIPPhone.register(server: account.server, user: account.user, domain: account.domain, password: account.password,
                                                    media: media, tls: account.tls, clientCertificate: account.clientCertificate, logger: logger)
            await phone.keepCalls(try connection.reconnectionPolicy())
            return LoadLogin(dial: { destination, options throws(ParleyError) in try await phone.dial(destination, options: options) },
                             close: { await phone.close() })
        }
        let configuration = try connection.clientConfiguration(media: media)
        let client = VoiceClient(configuration: configuration, logger: logger)
        let clientEvents = client.events
        // Unstructured: shows the client's news while the run goes; cancelled when the login closes.
        let clientNews = Task {
            for await event in clientEvents { presenter.client(event) }
        }
        presenter.note("connecting to \(configuration.server)")
        do {
            try await client.connect()
        } catch {
            clientNews.cancel()
            throw error
        }
        return LoadLogin(dial: { destination, options throws(ParleyError) in try await client.dial(destination, options: options) },
                         close: {
                             await client.disconnect()
                             clientNews.cancel()
                         })
    }
}
