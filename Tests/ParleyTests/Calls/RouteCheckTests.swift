@testable import Parley
import Testing

/// The route lookup the client uses to tell a stranded socket from a live one.
@Suite struct RouteCheckTests {
    @Test func theSourceTowardLoopbackIsLoopback() {
        #expect(RouteCheck.sourceAddress(toward: "127.0.0.1") == "127.0.0.1")
    }

    @Test func aNameOrGarbageIsNoRoute() {
        #expect(RouteCheck.sourceAddress(toward: "localhost") == nil, "only numeric addresses are looked up: no DNS on this path")
        #expect(RouteCheck.sourceAddress(toward: "300.1.2.3") == nil)
        #expect(RouteCheck.sourceAddress(toward: "") == nil)
    }
}
