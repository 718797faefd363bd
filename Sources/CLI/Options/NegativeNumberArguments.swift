/// ArgumentParser reads `-5` after `--duration` as a short option, so `--duration -5` said
/// "Missing value for '--duration'". Joining such a pair into `--duration=-5` hands the number to
/// the option, whose own check then says what range it takes.
enum NegativeNumberArguments {
    static func joined(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { return result + arguments[index...] }
            let next = index + 1
            if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="), next < arguments.endIndex, isNegativeNumber(arguments[next]) {
                result.append(argument + "=" + arguments[next])
                index += 2
            } else {
                result.append(argument)
                index += 1
            }
        }
        return result
    }

    /// `-5`, `-0.5`, `-.5`, `-1e3`: what `Double` or `Int` would read, after the minus.
    static func isNegativeNumber(_ text: String) -> Bool {
        guard text.hasPrefix("-"), text.count > 1, let first = text.dropFirst().first, first.isNumber || first == "." else { return false }
        return Double(text) != nil
    }
}
