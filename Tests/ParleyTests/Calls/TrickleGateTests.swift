@testable import Parley
import Testing

@Suite struct TrickleGateTests {
    @Test func holdsCandidatesUntilOpenedThenPassesThemInOrder() {
        var gate = TrickleGate()
        #expect(gate.pass("candidate:1").isEmpty)
        #expect(gate.pass("candidate:2").isEmpty)
        #expect(gate.pass(nil).isEmpty)
        #expect(gate.open() == ["candidate:1", "candidate:2", nil])
        #expect(gate.pass("candidate:3") == ["candidate:3"])
        #expect(gate.open().isEmpty)
    }
}
