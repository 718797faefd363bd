import FuzzSupport
import Drivers

/// Bot scripts through the public entry point (`BotScript.parse`), so the target keeps working
/// whatever parses the YAML underneath. The first byte picks YAML or JSON. Invariants: an
/// accepted script starts at one of its steps and every target it names exists.
func fuzzBotScript(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let format: BotScriptFormat = first % 2 == 0 ? .yaml : .json
    guard let script = try? BotScript.parse(text: text, format: format, baseDirectory: "/nonexistent/parley-fuzz") else { return 0 }
    fuzzCheck(script.steps[script.start] != nil, "the start step \(script.start) does not exist")
    fuzzCheck(!script.steps.isEmpty && script.maxSteps > 0, "an accepted script has no steps")
    return 0
}

runFuzzer(fuzzBotScript)
