import Foundation
import ICE
import Locking
import Synchronization
import TestSupport
import Testing

/// The soak (docs/performance.md, "Soak") takes every call through an ICE restart every minute or
/// so for an hour: each restart's new session must retire the old one once its pair is selected,
/// and closing the agent must release them all, or memory grows with every network change.
@Suite(.serialized, .tags(.slow), .notInQuickCheck) struct RestartReleaseTests {
    @Test func restartsReleaseThePreviousSessionAndCloseReleasesTheRest() async throws {
        let loop = NetworkLoop(name: "parley-t-restart")
        let a = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlling, allowedInterfaces: ["lo"], ipv6: false), loop: loop)
        let b = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlled, allowedInterfaces: ["lo"], ipv6: false), loop: loop)
        let candidatesOfB = Lock<[String]>([])
        let selectionsOfA = Atomic<Int>(0)
        // For the whole test: a's candidates (every session's) go to b; b's are kept to give each
        // new session of a's.
        let pumpA = Task {
            for await event in a.events {
                switch event {
                case .localCandidate(let line): try? b.addRemoteCandidate(line)
                case .selectedPair: selectionsOfA.add(1, ordering: .relaxed)
                default: break
                }
            }
        }
        let pumpB = Task {
            for await event in b.events {
                if case .localCandidate(let line) = event {
                    candidatesOfB.withLock { $0.append(line) }
                    try? a.addRemoteCandidate(line)
                }
            }
        }
        defer { pumpA.cancel(); pumpB.cancel() }
        a.setRemoteCredentials(ufrag: b.localCredentials.ufrag, password: b.localCredentials.password)
        b.setRemoteCredentials(ufrag: a.localCredentials.ufrag, password: a.localCredentials.password)
        try await a.startGathering()
        try await b.startGathering()
        try await waitUntil("a's first pair") { selectionsOfA.load(ordering: .relaxed) >= 1 }
        #expect(a.sessionsAlive == 1 && b.sessionsAlive == 1)

        let restarts = 5
        for restart in 1...restarts {
            let selected = selectionsOfA.load(ordering: .relaxed)
            // The same credentials, so b needs no new ones: only a's new session learns b's.
            try a.restart(keepingCredentials: true)
            a.setRemoteCredentials(ufrag: b.localCredentials.ufrag, password: b.localCredentials.password)
            for line in candidatesOfB.withLock({ $0 }) { try a.addRemoteCandidate(line) }
            try await waitUntil("a's pair after restart \(restart)") { selectionsOfA.load(ordering: .relaxed) > selected }
            // The retired session goes once libnice has closed it.
            try await waitUntil("the session before restart \(restart) to be released") { a.sessionsAlive == 1 }
        }
        a.close()
        b.close()
        try await waitUntil("every session to be released after close") { a.sessionsAlive == 0 && b.sessionsAlive == 0 }
    }
}
