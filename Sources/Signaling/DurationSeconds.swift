extension Duration {
    /// This duration as seconds with their fraction: for the dialect state machines, whose `now`
    /// is `ElapsedClock.seconds`, and for messages that name a time in seconds.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
