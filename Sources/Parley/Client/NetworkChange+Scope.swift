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
}
