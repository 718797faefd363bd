import Foundation

/// Reads rtnetlink messages (netlink(7), rtnetlink(7)) from a datagram. Bounds-checked: a
/// truncated or malformed message ends parsing of the datagram, never crashes.
enum NetlinkParser {
    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25
    private static let mainTable: UInt8 = 254

    static func changes(in datagram: UnsafeRawBufferPointer, interfaceName: (Int32) -> String?) -> [NetworkChange] {
        var changes: [NetworkChange] = []
        var offset = 0
        while offset + 16 <= datagram.count {
            let length = Int(datagram.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let type = datagram.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            guard length >= 16, offset + length <= datagram.count else { break }
            let payload = UnsafeRawBufferPointer(rebasing: datagram[(offset + 16)..<(offset + length)])
            if let change = change(type: type, payload: payload, interfaceName: interfaceName) { changes.append(change) }
            offset += align(length)
        }
        return changes
    }

    private static func change(type: UInt16, payload: UnsafeRawBufferPointer, interfaceName: (Int32) -> String?) -> NetworkChange? {
        switch type {
        case newLink, deleteLink:
            guard payload.count >= 16 else { return nil }
            let index = payload.loadUnaligned(fromByteOffset: 4, as: Int32.self)
            let flags = payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            let attributes = self.attributes(payload, from: 16)
            let name = attributes[3].flatMap(text) ?? interfaceName(index) ?? "if\(index)"
            if type == deleteLink { return .linkRemoved(interface: name) }
            let upAndRunning = flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0
            return .linkChanged(interface: name, up: upAndRunning)
        case newAddress, deleteAddress:
            guard payload.count >= 8 else { return nil }
            let family = Int32(payload[0])
            let prefix = Int(payload[1])
            let index = payload.loadUnaligned(fromByteOffset: 4, as: Int32.self)
            let attributes = self.attributes(payload, from: 8)
            // IFA_LOCAL is the interface's own address on point-to-point links; else IFA_ADDRESS.
            guard let raw = attributes[2] ?? attributes[1], let address = addressText(family: family, raw) else { return nil }
            let name = attributes[3].flatMap(text) ?? interfaceName(index) ?? "if\(index)"
            return type == newAddress
                ? .addressAdded(interface: name, address: address, prefixLength: prefix)
                : .addressRemoved(interface: name, address: address, prefixLength: prefix)
        case newRoute, deleteRoute:
            guard payload.count >= 12 else { return nil }
            let family = Int32(payload[0])
            let prefix = Int(payload[1])
            let attributes = self.attributes(payload, from: 12)
            var table = UInt32(payload[4])
            if let wide = attributes[15], wide.count >= 4 { table = wide.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } }
            guard table == UInt32(mainTable) else { return nil }
            let destination = attributes[1].flatMap { addressText(family: family, $0) }.map { "\($0)/\(prefix)" } ?? "default"
            let gateway = attributes[5].flatMap { addressText(family: family, $0) }
            let interface = attributes[4].flatMap { raw -> String? in
                guard raw.count >= 4 else { return nil }
                let index = raw.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
                return interfaceName(index) ?? "if\(index)"
            }
            return type == newRoute
                ? .routeAdded(destination: destination, gateway: gateway, interface: interface)
                : .routeRemoved(destination: destination, gateway: gateway, interface: interface)
        default:
            return nil
        }
    }

    /// Route attributes (struct rtattr: length, type, value) from `start`, last one wins.
    private static func attributes(_ payload: UnsafeRawBufferPointer, from start: Int) -> [UInt16: [UInt8]] {
        var result: [UInt16: [UInt8]] = [:]
        var offset = start
        while offset + 4 <= payload.count {
            let length = Int(payload.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = payload.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & 0x3FFF
            guard length >= 4, offset + length <= payload.count else { break }
            result[type] = Array(payload[(offset + 4)..<(offset + length)])
            offset += align(length)
        }
        return result
    }

    private static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    private static func text(_ bytes: [UInt8]) -> String? {
        let trimmed = bytes.prefix { $0 != 0 }
        return trimmed.isEmpty ? nil : String(decoding: trimmed, as: UTF8.self)
    }

    private static func addressText(family: Int32, _ bytes: [UInt8]) -> String? {
        let expected = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0
        guard expected > 0, bytes.count >= expected else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        return ok ? buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
    }
}
