import OrientationAPI
@testable import OrientationEngine
import Testing

/// A pose held at the leave angle: a phone at the ear sits at φ 55–65°, and a 10 Hz poll
/// reads it on both sides of the line. A reading that falls back inside the hysteresis,
/// after ConfirmReadings readings past it, is forgiven once (``Candidate``).
@Suite("Hovering at the leave angle")
struct HoverTests {
    /// Normal for 2 s, then the roll angles of `cycle` over and over, at 10 Hz, the
    /// elevation wobbling ±3.5° from reading to reading (calm, but never a rest: no two
    /// readings within RestAngleDeg). Returns when right-up was first reported (ms after
    /// the hover began) and the φ of the reading that reported it.
    func hover(_ cycle: [(phi: Double, theta: Double)], forMs: Int64 = 3000) -> (ms: Int64, phi: Double)? {
        var e = OrientationEngine()
        var t: Int64 = 0
        var k = 0
        while t < 2000 + forMs {
            let wobble = k % 2 == 0 ? 3.5 : -3.5
            let pose = t < 2000 ? (phi: 0.0, theta: 0.0) : cycle[(k - 20) % cycle.count]
            e.feed(poseSample(t: t, phi: pose.phi, theta: pose.theta + wobble))
            if t >= 2000 && e.orientation == .rightUp { return (t - 2000, pose.phi) }
            #expect(e.orientation == .normal, "\(e.explanation)")
            t += 100
            k += 1
        }
        return nil
    }

    @Test("one reading falling back short of the leave angle does not start a hover's wait over")
    func oneReadingBackIsForgiven() throws {
        let leave = 45 + EngineTunables.default.orientationHysteresisDeg
        #expect(leave == 60)
        // Readings past the line (at its edge: EdgeSettleMs), one in three back short of
        // it: the wait goes on across the one back, and the commit is made on a reading
        // past the line. (The estimate smooths the readings: it reads φ 58–65°.) Without
        // the rule each reading back starts the wait over, and it never completes.
        let hover = try #require(self.hover([(64, 0), (66, 0), (57, 0)]), "never followed")
        #expect(hover.ms <= 700, "followed after \(hover.ms) ms")
        #expect(hover.phi > leave)
        // Readings mostly short of the line: one past it at a time is not a proposal that
        // stands, and none is forgiven.
        #expect(self.hover([(62, 0), (57, 0), (56, 0)]) == nil)
    }
}
