// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Parley", targets: ["Parley"]),
        .library(name: "SDP", targets: ["SDP"]),
        // The layers on their own, for the libFuzzer harness in Fuzz/ (a separate package, which
        // reaches their package and internal declarations with `@testable import`). Their public
        // declarations are only the types Parley's API takes or returns.
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
        .target(name: "Parley", dependencies: ["Locking", "SDP", "Signaling", "ICE", "Media", "CEspeakNG", "CPocketSphinx", "CMalloc", "Yams", .product(name: "Logging", package: "swift-log")]),
        .target(name: "Switch", dependencies: ["Signaling", "Locking", .product(name: "CoreMetrics", package: "swift-metrics")]),
        // Test helper: one ICE agent driven over stdin/stdout, run inside a network namespace.
        .executableTarget(name: "ICEPeer", dependencies: ["ICE", "Locking"]),
        .executableTarget(
            name: "CLI",
            dependencies: [
                "Parley",
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
            ]
        ),

        // Bounded waits on event streams, awaited cleanups and the leak check, shared by the test targets.
        .target(name: "TestSupport", dependencies: ["Locking"], path: "Tests/TestSupport"),
        .testTarget(name: "SDPTests", dependencies: ["SDP"]),
        .testTarget(name: "SignalingTests", dependencies: ["Locking", "Signaling", "Switch", "SDP", "Media", "TestSupport"], exclude: ["Support/ws_fragments.py"]),
        .testTarget(name: "ICETests", dependencies: ["Locking", "ICE", "ICEPeer", "CNice", "TestSupport"]),
        .testTarget(name: "MediaTests", dependencies: ["Locking", "Media", "SDP", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["Locking", "CLI", "Parley", "Media", "TestSupport"]),
        .testTarget(name: "ParleyTests", dependencies: ["Locking", "Parley", "Signaling", "Switch", "Media", "ICE", "SDP", "TestSupport", .product(name: "Logging", package: "swift-log")]),
    ],
    swiftLanguageModes: [.v6]
)
