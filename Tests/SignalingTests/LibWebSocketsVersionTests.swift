import Signaling
import Testing

@Suite struct LibWebSocketsVersionTests {
    @Test func runtimeVersionComesFromTheLoadedLibrary() {
        let version = LibWebSocketsVersion.runtime()
        #expect(version != "unknown")
        #expect(version.first?.isNumber == true, "unexpected version text: \(version)")
    }
}
