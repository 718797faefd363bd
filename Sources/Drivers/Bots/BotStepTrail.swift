import Parley

/// The steps one call's bot visited, in a bounded space: a looping bot (a prompt played until the
/// caller hangs up, `max_steps` up to a million) visits a step a second for hours, and keeping
/// every name would grow each call's memory for as long as it lasts. The trail keeps the first
/// `kept` / 2 names and the last `kept` / 2, and counts the ones between.
package struct BotStepTrail {
    package static let kept = 256

    package private(set) var visited = 0
    private var head: [String] = []
    /// The last names, a ring once full: `tail[next]` is the oldest.
    private var tail: [String] = []
    private var next = 0

    package init() {}

    package mutating func append(_ name: String) {
        visited += 1
        if head.count < Self.kept / 2 {
            head.append(name)
        } else if tail.count < Self.kept / 2 {
            tail.append(name)
        } else {
            tail[next] = name
            next = (next + 1) % tail.count
        }
    }

    /// The names kept, in the order they were visited; `omitted` of them are left out after the
    /// first `kept` / 2.
    package var names: [String] { head + tail[next...] + tail[..<next] }
    package var omitted: Int { visited - head.count - tail.count }
}
