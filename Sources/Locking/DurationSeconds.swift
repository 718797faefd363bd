/// In the base module (Locking, which every module may import) so that each layer, the CLI
/// included, imports it where it is declared rather than reaching a lower layer's member
/// through `import Parley` (docs/architecture.md, "Modules").
extension Duration {
    /// This duration as seconds with their fraction: for the dialect state machines, whose `now`
    /// is `ElapsedClock.seconds`, and for messages that name a time in seconds.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
