/// The operations-by-state table of docs/calls.md, written from the state machine itself so the
/// docs cannot drift from the code (a test compares them).
package enum CallStateTable {
    package static func markdown() -> String {
        let states = CallState.live
        var lines = ["| operation | " + states.map(\.name).joined(separator: " | ") + " |"]
        lines.append("|---|" + states.map { _ in "---|" }.joined())
        for operation in CallOperation.allCases {
            let outgoing = CallStateMachine.allowedStates(for: operation, direction: .outgoing)
            let incoming = CallStateMachine.allowedStates(for: operation, direction: .incoming)
            let cells = states.map { state -> String in
                switch (outgoing.contains(state), incoming.contains(state)) {
                case (true, true): "yes"
                case (true, false): "out"
                case (false, true): "in"
                case (false, false): "·"
                }
            }
            lines.append("| \(operation.rawValue) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
