/// One change the kernel reports on rtnetlink.
package enum NetworkChange: Sendable, Equatable, CustomStringConvertible {
    case addressAdded(interface: String, address: String, prefixLength: Int)
    case addressRemoved(interface: String, address: String, prefixLength: Int)
    /// A link appeared or its flags changed; `up` means administratively up and running.
    case linkChanged(interface: String, up: Bool)
    case linkRemoved(interface: String)
    /// Routes of the main table; `destination` is "default" for a default route.
    case routeAdded(destination: String, gateway: String?, interface: String?)
    case routeRemoved(destination: String, gateway: String?, interface: String?)

    package var description: String {
        switch self {
        case .addressAdded(let interface, let address, let prefix): "address-added \(interface) \(address)/\(prefix)"
        case .addressRemoved(let interface, let address, let prefix): "address-removed \(interface) \(address)/\(prefix)"
        case .linkChanged(let interface, let up): "link \(interface) \(up ? "up" : "down")"
        case .linkRemoved(let interface): "link-removed \(interface)"
        case .routeAdded(let destination, let gateway, let interface): "route-added \(destination)\(gateway.map { " via \($0)" } ?? "")\(interface.map { " dev \($0)" } ?? "")"
        case .routeRemoved(let destination, let gateway, let interface): "route-removed \(destination)\(gateway.map { " via \($0)" } ?? "")\(interface.map { " dev \($0)" } ?? "")"
        }
    }
}

package enum NetworkMonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    case socket(errno: Int32)
    case bind(errno: Int32)

    package var description: String {
        switch self {
        case .socket(let code): "cannot open a netlink socket (errno \(code))"
        case .bind(let code): "cannot subscribe to rtnetlink groups (errno \(code))"
        }
    }
}
