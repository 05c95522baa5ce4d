/// A proposed change, debounced: what is proposed, since when, and by how many readings.
///
/// Proposing the same value again adds a reading; proposing another starts over. The
/// start is credited half the interval before the first reading that proposed it: the
/// boundary was crossed somewhere in that interval.
struct Candidate<Value: Equatable & Sendable>: Sendable {
    private(set) var value: Value?
    private(set) var sinceMs = 0.0
    private(set) var readings = 0

    /// A reading at `t` proposes `proposal` (nil: nothing, or what is already reported).
    mutating func propose(_ proposal: Value?, at t: Double, creditMs: Double) {
        guard let proposal else {
            value = nil
            readings = 0
            return
        }
        if proposal == value {
            readings += 1
        } else {
            value = proposal
            sinceMs = t - creditMs
            readings = 1
        }
    }

    mutating func clear() { propose(nil, at: 0, creditMs: 0) }
}
