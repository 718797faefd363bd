/// Our trickled candidates, held until the server knows the call (our invite, answer or offer
/// went through), then released in order. `nil` stands for end-of-candidates.
struct TrickleGate {
    private var isOpen = false
    private var held: [String?] = []

    /// What to send now for `candidate`: itself once the gate is open, nothing before.
    mutating func pass(_ candidate: String?) -> [String?] {
        guard isOpen else {
            held.append(candidate)
            return []
        }
        return [candidate]
    }

    /// Opens the gate and returns what waited, in order.
    mutating func open() -> [String?] {
        isOpen = true
        defer { held = [] }
        return held
    }
}
