// swift-tools-version:6.0
// The libFuzzer harness lives in its own package: libFuzzer supplies `main`, which would clash
// with a normal build of the root package. `make fuzz` builds it with -sanitize=fuzzer.
import PackageDescription

let package = Package(
    name: "ParleyFuzz",
    dependencies: [.package(name: "Parley", path: "..")],
    targets: [
        .executableTarget(name: "SDPFuzz", dependencies: [.product(name: "SDP", package: "Parley")]),
    ],
    swiftLanguageModes: [.v6]
)
