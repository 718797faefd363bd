import ICE

extension NetworkChange {
    /// The interface the change happened on, when the kernel named one.
    var interface: String? {
        switch self {
        case .addressAdded(let name, _, _), .addressRemoved(let name, _, _), .linkChanged(let name, _), .linkRemoved(let name): name
        case .routeAdded(_, _, let name), .routeRemoved(_, _, let name): name
        }
    }

    /// The address added or removed, for address changes.
    var address: String? {
        switch self {
        case .addressAdded(_, let address, _), .addressRemoved(_, let address, _): address
        default: nil
        }
    }

    /// Whether the change may concern a client signalling to `server` (an IP address, if known)
    /// with `media`: loopback, IPv6 link-local addresses (they come and go with every link) and
    /// addresses of a family used neither for signalling nor for media do not.
    func concerns(server: String?, media: MediaOptions) -> Bool {
        if interface == "lo" { return false }
        guard let address else { return true }
        if address.lowercased().hasPrefix("fe80:") { return false }
        let serverIsIPv4 = server.map { !$0.contains(":") } ?? true
        return !(address.contains(":") && !media.ipv6 && serverIsIPv4)
    }

    /// Whether media may use what changed (its interface is allowed, its family is gathered):
    /// calls then restart ICE. Other changes only concern the signalling socket.
    func concernsMedia(_ media: MediaOptions) -> Bool {
        if let address, address.contains(":"), !media.ipv6 { return false }
        guard let interface, !media.allowedInterfaces.isEmpty else { return true }
        return media.allowedInterfaces.contains(interface)
    }
}
