// swift-tools-version:6.0
// The libFuzzer harness lives in its own package: libFuzzer supplies `main`, which would clash
// with a normal build of the root package. `make fuzz` (scripts/fuzz) builds it with
// -sanitize=fuzzer,address and -enable-testing, so targets can reach parsers that are internal
// to their module (`@testable import`). One executable per parser; docs/fuzzing.md lists them.
import PackageDescription

let parley = "Parley"

let package = Package(
    name: "ParleyFuzz",
    dependencies: [.package(name: parley, path: "..")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(name: "SDPFuzz", dependencies: ["FuzzSupport", .product(name: "SDP", package: parley)]),
        .executableTarget(name: "VertoFuzz", dependencies: ["FuzzSupport", .product(name: "Signaling", package: parley)]),
        .executableTarget(name: "SwitchFuzz", dependencies: ["FuzzSupport", .product(name: "Switch", package: parley), .product(name: "Signaling", package: parley)]),
        .executableTarget(name: "SIPFuzz", dependencies: ["FuzzSupport", .product(name: "Signaling", package: parley)]),
        .executableTarget(name: "JanusFuzz", dependencies: ["FuzzSupport", .product(name: "Signaling", package: parley)]),
        .executableTarget(name: "RTPFuzz", dependencies: ["FuzzSupport", .product(name: "Media", package: parley)]),
        .executableTarget(name: "RTCPFuzz", dependencies: ["FuzzSupport", .product(name: "Media", package: parley)]),
        .executableTarget(name: "TelephoneEventFuzz", dependencies: ["FuzzSupport", .product(name: "Media", package: parley)]),
        .executableTarget(name: "STUNFuzz", dependencies: ["FuzzSupport", .product(name: "ICE", package: parley)]),
        .executableTarget(name: "WAVFuzz", dependencies: ["FuzzSupport", .product(name: "Media", package: parley)]),
        .executableTarget(name: "BotScriptFuzz", dependencies: ["FuzzSupport", .product(name: "Drivers", package: parley)]),
        .executableTarget(name: "AgentFuzz", dependencies: ["FuzzSupport", .product(name: "Drivers", package: parley)]),
        .executableTarget(name: "HearingFuzz", dependencies: ["FuzzSupport", .product(name: "Drivers", package: parley)]),
    ],
    swiftLanguageModes: [.v6]
)
