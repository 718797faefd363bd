#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Hands control to libFuzzer's driver. SwiftPM gives every executable its own `main` (renamed
/// for testability), so libFuzzer's `main` never runs; each target's main.swift calls this.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

/// The input as an array (libFuzzer may pass a null pointer for an empty input).
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// An invariant beyond "no crash": when it fails, the input is a finding, kept by libFuzzer.
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(message())") }
}

/// Frames per conversation for the JSON-RPC targets. The longest seed conversation has 9; a
/// longer one reaches no new state but costs a JSON parse per frame, and libFuzzer's mutations
/// grow inputs towards `-max_len`, so a higher cap mostly lowers executions per second.
public let fuzzConversationLimit = 16

/// Splits an input into frames at NUL bytes (the seed corpora write one frame per line and
/// join them with NUL), so one input can drive a conversation.
public func fuzzFrames(_ bytes: [UInt8], limit: Int = 64) -> [String] {
    bytes.split(separator: 0, omittingEmptySubsequences: true).prefix(limit).map { String(decoding: $0, as: UTF8.self) }
}
