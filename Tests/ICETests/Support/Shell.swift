import Foundation

enum TestBedError: Error, CustomStringConvertible {
    case notRoot
    case commandFailed(String, Int32, String)
    case timeout(String)
    case peerExited(String)

    var description: String {
        switch self {
        case .notRoot: "the ICE namespace tests need root (ip netns, veth, iptables, coturn); run `sudo make test`"
        case .commandFailed(let command, let status, let output): "\(command) exited \(status): \(output)"
        case .timeout(let what): "timed out waiting for \(what)"
        case .peerExited(let name): "peer \(name) exited"
        }
    }
}

enum Shell {
    /// Runs a program to completion and returns its output; throws on a non-zero exit.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestBedError.commandFailed(arguments.joined(separator: " "), process.terminationStatus, output)
        }
        return output
    }

    static func requireRoot() throws {
        guard getuid() == 0 else { throw TestBedError.notRoot }
    }

    /// The package root, found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where SwiftPM put the test bundle and, beside it, the ICEPeer helper.
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }
}
