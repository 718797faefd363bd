// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v13)],
    products: [
        // The library of calls: `import Parley` is all a program that places and answers calls
        // writes; it re-exports the types its API takes or returns from the layers below, and SDP
        // (docs/architecture.md, "Modules").
        .library(name: "Parley", targets: ["Parley"]),
        // What drives a call, above the library: bot scripts, hearing and speech, agents, the call
        // driver, munging rules files (docs/architecture.md, "Modules").
        .library(name: "Drivers", targets: ["Drivers"]),
        // The SDP library on its own, for programs that only parse and munge SDP.
        .library(name: "SDP", targets: ["SDP"]),
        // Not API: the layers below Parley, and the switch, for the libFuzzer harness in Fuzz/
        // alone (a separate package, which reaches their package and internal declarations with
        // `@testable import`).
        .library(name: "Signaling", targets: ["Signaling"]),
        .library(name: "Media", targets: ["Media"]),
        .library(name: "ICE", targets: ["ICE"]),
        .library(name: "Switch", targets: ["Switch"]),
        .executable(name: "parley", targets: ["CLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation --target Parley` builds Sources/Parley/Parley.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System-library shims: headers and link flags come from pkg-config.
        .systemLibrary(name: "CNice", pkgConfig: "nice", providers: [.apt(["libnice-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CWebRTCAudioProcessing", pkgConfig: "webrtc-audio-processing", providers: [.apt(["libwebrtc-audio-processing-dev"])]),
        // espeak-ng ships no .pc file; the module map links it by name.
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        // Offline speech recognition (docs/speech.md): the decoder 0.8+5prealpha and its en-us model.
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx", providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]),
        // libyaml's event parser, for the cheap check of a YAML document's shape (Sources/CLibYAML/shim.h).
        .systemLibrary(name: "CLibYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // ThreadSanitizer's annotation functions, for Locking's sanitize build only.
        .systemLibrary(name: "CThreadSanitizer"),

        // The one lock type, which ThreadSanitizer can see (Sources/Locking/Lock.swift).
        .target(name: "Locking", dependencies: ["CThreadSanitizer"]),

        .target(name: "SDP"),
        // COpenSSL: the TLS failure messages call OpenSSL directly (libwebsockets does not link it for us).
        .target(name: "Signaling", dependencies: ["Locking", "CWebSockets", "COpenSSL", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ICE", dependencies: ["Locking", "CNice", .product(name: "Logging", package: "swift-log")]),
        // WebRTC's audio processing is C++: this small target gives it a C interface for Media.
        // SwiftPM drops pkg-config's -D flags, so the two the headers need are set here.
        .target(
            name: "VoiceProcessingBridge", dependencies: ["CWebRTCAudioProcessing"],
            cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")],
            linkerSettings: [.linkedLibrary("stdc++")]),
        .target(name: "Media", dependencies: ["Locking", "SDP", "CSRTP", "COpus", "COpenSSL", "CSpeexDSP", "CPulse", "VoiceProcessingBridge"]),
        .target(name: "Parley", dependencies: ["Locking", "SDP", "Signaling", "ICE", "Media", "CMalloc", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "Drivers",
            dependencies: ["Parley", "Locking", "SDP", "Signaling", "Media", "CEspeakNG", "CPocketSphinx", "CLibYAML", "Yams", .product(name: "Logging", package: "swift-log")],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // The softphone's script is compiled in as bytes (`PackageResources`), not a bundle beside
        // the binary, so an installed `parley` serves it alone.
        .target(
            name: "Switch", dependencies: ["Signaling", "Locking", .product(name: "CoreMetrics", package: "swift-metrics")],
            resources: [.embedInCode("Web/softphone.js")]),
        // Test helper: one ICE agent driven over stdin/stdout, run inside a network namespace.
        .executableTarget(name: "ICEPeer", dependencies: ["ICE", "Locking"]),
        .executableTarget(
            name: "CLI",
            // Signaling, ICE and Media only for the files docs/architecture.md names as the CLI's
            // seam (ModuleBoundaryTests checks every import); MemberImportVisibility keeps their
            // members out of every other file too.
            dependencies: [
                "Parley",
                "Drivers",
                "Locking",
                "CMalloc",
                "SDP",
                "Signaling",
                "Switch",
                "ICE",
                "Media",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),

        // Bounded waits on event streams, awaited cleanups and the leak check, shared by the test targets.
        .target(name: "TestSupport", dependencies: ["Locking"], path: "Tests/TestSupport"),
        .testTarget(name: "SDPTests", dependencies: ["SDP"]),
        .testTarget(name: "SignalingTests", dependencies: ["Locking", "Signaling", "Switch", "SDP", "Media", "TestSupport"], exclude: ["Support/ws_fragments.py"]),
        .testTarget(name: "ICETests", dependencies: ["Locking", "ICE", "ICEPeer", "CNice", "TestSupport"]),
        .testTarget(name: "MediaTests", dependencies: ["Locking", "Media", "SDP", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["Locking", "CLI", "Parley", "Drivers", "Media", "TestSupport"]),
        // Drivers for the library guide's sample (a bot on an incoming call) and a munging rules file.
        .testTarget(name: "ParleyTests", dependencies: ["Locking", "Parley", "Drivers", "Signaling", "Switch", "Media", "ICE", "SDP", "TestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "DriversTests", dependencies: ["Locking", "Drivers", "Parley", "Signaling", "Switch", "Media", "SDP", "TestSupport", .product(name: "Logging", package: "swift-log")]),
    ],
    swiftLanguageModes: [.v6]
)
