import Logging
import Signaling

/// AudioBridge requests beyond join and configure.
enum JanusAudioBridge {
    /// The plugin's "room already exists" error: another participant created it first.
    static let roomExists = 486

    /// Creates `room` unless it exists: 48 kHz, Opus (the plugin's default codec), not permanent.
    static func ensureRoom(_ room: Int, client: JanusClient, handle: Int, logger: Logger) async throws(ParleyError) {
        do {
            let exists = try await client.message(handle: handle, body: ["request": "exists", "room": .integer(room)])
            if exists.data["exists"]?.boolValue == true { return }
            _ = try await client.message(handle: handle, body: [
                "request": "create", "room": .integer(room), "description": .string("Parley room \(room)"),
                "sampling_rate": 48000, "permanent": false,
            ])
            logger.info("created AudioBridge room \(room)")
        } catch .janus(let code, _) where code == roomExists {
            return
        } catch {
            throw ParleyError(error)
        }
    }
}
