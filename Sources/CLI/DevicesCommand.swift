import ArgumentParser
import Foundation
import Media
import Parley

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the sound server's microphones (sources) and speakers (sinks).",
        discussion: """
            Names go to --play mic:NAME and --record speaker:NAME; * marks the server's defaults, which plain
            mic and speaker use. With no sound server reachable: error audio-unavailable, exit status 3 (docs/audio.md).
            """
    )

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func run() throws {
        let devices: SoundDevices
        do {
            devices = try SoundServer.shared.devices()
        } catch {
            let failure = ParleyError(error)
            if json {
                JSONEvents.emit("error", DevicesErrorPayload(code: failure.code, message: failure.message))
            } else {
                FileHandle.standardError.write(Data("error (\(failure.code)): \(failure.message)\n".utf8))
            }
            throw ExitCode(failure.kind == .audioUnavailable ? ExitStatus.notConnected : ExitStatus.usage)
        }
        if json {
            JSONEvents.emit("devices", devices)
            return
        }
        print("server: \(devices.server)")
        print("sources (--play mic:NAME):")
        for device in devices.sources { print(Self.line(device)) }
        print("sinks (--record speaker:NAME):")
        for device in devices.sinks { print(Self.line(device)) }
    }

    private static func line(_ device: SoundDevice) -> String {
        let mark = device.isDefault ? "*" : " "
        let monitor = device.isMonitor ? ", monitor" : ""
        return "  \(mark) \(device.name)  \(device.description) (\(device.sampleRate) Hz, \(device.channels) ch\(monitor))"
    }
}

private struct DevicesErrorPayload: Encodable {
    let code: String
    let message: String
}
