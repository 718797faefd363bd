extension UnsafeBufferPointer<Int16> {
    /// RMS of the samples, 0…1: the level meters of what a session plays and sends, computed
    /// when statistics are read, not every tick.
    var rmsLevel: Double {
        guard !isEmpty else { return 0 }
        var sum = 0.0
        for sample in self { sum += Double(sample) * Double(sample) }
        return (sum / Double(count)).squareRoot() / 32768
    }
}
