import Foundation
import Parley

/// Runs one call on the command line: shows its events, sends the requested digits, hangs up
/// after the duration, on q or on Ctrl-C, and turns its end into an exit status.
struct CallSession {
    let call: any CallControls
    let presenter: CallPresenter
    let dtmf: String?
    let duration: Double?
    let statsInterval: Double
    let interactive: Bool
    /// Read commands from standard input (it is not a terminal and not the audio source).
    let commandsFromStandardInput: Bool

    func run() async -> Int32 {
        let started = ContinuousClock.now
        let keyboard = KeyboardInput()
        if interactive && presenter.statusLine { keyboard.start() }
        let commands = CommandInput()
        if commandsFromStandardInput { commands.start() }
        let interruption = Interruption()
        let call = call
        let presenter = presenter
        let dtmf = dtmf
        let duration = duration

        let watcher = Task {
            var activated = false
            for await event in call.events {
                presenter.event(call.callID, event)
                guard case .state(.active) = event, !activated else { continue }
                activated = true
                presenter.negotiated(call.callID, await call.statistics())
                if let dtmf {
                    do throws(ParleyError) { try await call.sendDTMF(dtmf) } catch { presenter.error(error, call: call.callID) }
                }
                if let duration {
                    Task {
                        try? await Task.sleep(for: .milliseconds(Int(duration * 1000)))
                        await call.end()
                    }
                }
            }
        }
        let keys = Task {
            for await key in keyboard.keys { await handle(key) }
        }
        let scripted = Task {
            for await line in commands.lines { await perform(line) }
        }
        let signals = Task {
            for await _ in interruption.signals { await call.end() }
        }
        let ticker = Task {
            var lastStats = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let state = await call.currentState()
                guard !state.isDone else { return }
                let statistics = await call.statistics()
                presenter.status(state, elapsed: ContinuousClock.now - started, statistics: statistics, muted: await call.muted())
                if statsInterval > 0, ContinuousClock.now - lastStats >= .milliseconds(Int(statsInterval * 1000)) {
                    lastStats = .now
                    presenter.stats(call.callID, statistics)
                }
            }
        }

        let reason = await call.waitUntilDone()
        await watcher.value
        ticker.cancel()
        keys.cancel()
        scripted.cancel()
        signals.cancel()
        keyboard.stop()
        commands.stop()
        let statistics = await call.statistics()
        presenter.stats(call.callID, statistics)
        presenter.ended(call.callID, reason, statistics: statistics)
        return ExitStatus.forEnd(reason, failure: await call.currentFailure())
    }

    /// One command line from standard input.
    private func perform(_ line: String) async {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        do throws(ParleyError) {
            switch words[0].lowercased() {
            case "dtmf" where words.count == 2: try await call.sendDTMF(words[1])
            case "hold": try await call.setHeld(true)
            case "unhold": try await call.setHeld(false)
            case "mute": try await call.setMuted(true)
            case "unmute": try await call.setMuted(false)
            case "hangup": await call.end()
            default:
                throw ParleyError(kind: .configuration, message: "unknown command \"\(line.prefix(40))\"; use dtmf DIGITS, hold, unhold, mute, unmute or hangup")
            }
        } catch {
            presenter.error(error, call: call.callID)
        }
    }

    private func handle(_ key: Character) async {
        do {
            switch key {
            case "q", "Q":
                await call.end()
            case "m", "M":
                let muted = await call.muted()
                try await call.setMuted(!muted)
                presenter.note(muted ? "unmuted" : "muted")
            case "h", "H":
                let state = await call.currentState()
                try await call.setHeld(!(state == .held || state == .doubleHeld))
            case "0"..."9", "*", "#", "A"..."D":
                try await call.sendDTMF(String(key))
            default:
                break
            }
        } catch {
            presenter.error(error, call: call.callID)
        }
    }
}
