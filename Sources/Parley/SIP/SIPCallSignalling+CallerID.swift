import Signaling

extension SIPCallSignalling {
    /// The account as our INVITE's From names it (the caller name as its display name) and the
    /// fields the dial options add: P-Asserted-Identity for the caller number, then the custom
    /// headers, each checked before anything is sent (docs/sip.md, "Caller id and custom headers").
    static func caller(of options: DialOptions, account: SIPAccount) throws(ParleyError) -> (from: SIPAccount, fields: [SIPHeader]) {
        let callerID = SIPCallerID(name: options.callerName, number: options.callerNumber)
        var from = account
        if let name = callerID.name { from.displayName = name }
        do {
            let identity = try callerID.assertedIdentity(domain: account.domain)
            return (from, (identity.map { [$0] } ?? []) + (try SIPCustomHeaders.fields(options.headers)))
        } catch {
            throw ParleyError(kind: .configuration, message: error.description)
        }
    }
}

extension SIPPhone {
    /// Refuses, before any registration, dial options our INVITE cannot carry: a custom header
    /// whose name is not a token or that the stack writes itself, a value or caller id with a
    /// line break or other control character.
    public nonisolated static func check(_ options: DialOptions) throws(ParleyError) {
        do {
            try SIPCallerID(name: options.callerName, number: options.callerNumber).check()
            _ = try SIPCustomHeaders.fields(options.headers)
        } catch {
            throw ParleyError(kind: .configuration, message: error.description)
        }
    }

    /// Refuses, before any registration, a destination no INVITE can be sent to ("sip:", "bob
    /// smith", "sip:@host"). A bare user is checked in a placeholder domain: the account's own
    /// domain is known only once the login is read, and only the user part is checked here.
    public nonisolated static func check(destination: String) throws(ParleyError) {
        _ = try SIPCallSignalling.requestURI(for: destination, domain: "domain.invalid")
    }

    /// Refuses a server URL no flow can be opened to, in the words `open` would use.
    public nonisolated static func check(server: String) throws(ParleyError) {
        do { _ = try SIPServerAddress(parsing: server) } catch { throw ParleyError(kind: .configuration, message: "\(error)") }
    }
}
