/// A proposed change, debounced: what is proposed, since when, and by how many readings.
///
/// Proposing the same value again adds a reading; proposing another starts over, from
/// the time the caller says the new proposal began (``EngineMath/firstSeen(at:intervalMs:)``:
/// half the interval before the first reading that proposed it).
///
/// One reading that proposes nothing may be forgiven (``propose(_:since:forgivingAfter:)``):
/// the proposal stands through it, *lapsed*, and nothing may be decided on that reading.
struct Candidate<Value: Equatable & Sendable>: Sendable {
    private(set) var value: Value?
    private(set) var sinceMs = 0.0
    private(set) var readings = 0
    /// Whether the last reading proposed nothing and was forgiven: the proposal stands,
    /// but that reading argues against it, so no decision rests on it.
    private(set) var lapsed = false

    /// A reading proposes `proposal` (nil: nothing, or what is already reported), which
    /// began at `began` if it is new. A nil proposal after `forgivingAfter` readings or
    /// more that proposed the value is forgiven, once: the value stands, lapsed, until the
    /// next reading proposes it again (or does not, and it is dropped).
    mutating func propose(_ proposal: Value?, since began: Double, forgivingAfter confirmed: Int = .max) {
        guard let proposal else {
            if value != nil && !lapsed && readings >= confirmed {
                lapsed = true
                return
            }
            value = nil
            readings = 0
            lapsed = false
            return
        }
        if proposal == value {
            readings += 1
        } else {
            value = proposal
            sinceMs = began
            readings = 1
        }
        lapsed = false
    }

    mutating func clear() { propose(nil, since: 0) }
}
