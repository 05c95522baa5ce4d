import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine

/// The engine's small value types, each on its own.
@Suite("Engine parts")
struct EnginePartsTests {
    @Test("an angle is within a limit, acute or obtuse, as the angle between the vectors says", arguments: [1.0, 30, 89, 90, 91, 120, 179, 180])
    func withinAnyLimit(limitDeg: Double) {
        let a = Vector3(x: 2, y: 0, z: 0)
        let cosLimit = cos(limitDeg * .pi / 180)
        for angle in stride(from: 0.0, through: 180, by: 0.5) {
            let b = Vector3(x: 3 * cos(angle * .pi / 180), y: 3 * sin(angle * .pi / 180), z: 0)
            // Away from the limit itself, where rounding decides either way.
            guard abs(angle - limitDeg) > 1e-6 else { continue }
            #expect(a.within(cosine: cosLimit, of: b) == (angle < limitDeg), "\(angle)° against \(limitDeg)°")
        }
        #expect(!Vector3.zero.within(cosine: cosLimit, of: a) && !a.within(cosine: cosLimit, of: .zero))
    }

    @Test("log agrees with the identities it is used for")
    func logarithm() {
        for x in [1e-9, 0.1, 0.5, 1, 1.5, 2, 3, 10, 1e6] {
            // e^(−|ln x|) = min(x, 1/x), through the engine's own exponential.
            #expect(abs(EngineMath.expNeg(abs(EngineMath.log(x))) - min(x, 1 / x)) <= 1e-12, "x = \(x)")
        }
        #expect(EngineMath.log(1) == 0)
        #expect(EngineMath.log(0) == -.infinity)
        #expect(EngineMath.log(-1).isNaN)
    }

    @Test("a decaying peak: a movement k times calm is remembered for τ·ln k, and a smaller one after it changes nothing")
    func decayingPeak() {
        var p = DecayingPeak(timeConstantMs: 150)
        p.observe(3, at: 1000)
        #expect(abs(p.time(fallingTo: 1) - (1000 + 150 * EngineMath.log(3))) < 1e-9)
        var big = DecayingPeak(timeConstantMs: 150)
        big.observe(10, at: 1000)
        #expect(big.time(fallingTo: 1) > p.time(fallingTo: 1) + 150)
        // A smaller observation after the peak: the level goes on decaying from the peak,
        // and when it fell to calm is still known (not "now").
        let fell = p.time(fallingTo: 1)
        p.observe(0.2, at: 1300)
        #expect(p.time(fallingTo: 1) == fell)
        #expect(abs(p.level(at: 1300) - 3 * EngineMath.expNeg(300.0 / 150)) < 1e-12)
        // A larger one is a new peak.
        p.observe(2, at: 1400)
        #expect(p.time(fallingTo: 1) > 1400)
    }

    @Test("a low-pass filter is the same filter at 10 and at 200 Hz")
    func lowPassRateIndependence() {
        var slow = LowPass(timeConstantMs: 100)
        var fast = LowPass(timeConstantMs: 100)
        let target = Vector3(x: 1, y: 0, z: 0)
        for _ in 0..<3 { slow.update(target, dtMs: 100) }
        for _ in 0..<60 { fast.update(target, dtMs: 5) }
        #expect(abs(slow.value.x - fast.value.x) < 1e-9)
        #expect(abs(slow.value.x - (1 - EngineMath.expNeg(3))) < 1e-9)
    }

    @Test("a rest is measured from its mean: one noisy first reading does not end it")
    func restFromTheMean() {
        var r = Rest(angleDeg: 5, band: 0.04)
        let noisy = poseSample(t: 0, phi: 4, theta: 0)
        r.observe(Vector3(noisy), length: 9.81, since: 0)
        // Readings at φ = 0, more than 5° from the first at φ = 4 after three of them:
        // within 5° of the mean, so the run goes on.
        for (i, phi) in [0.0, 0, 0, -1.5].enumerated() {
            r.observe(Vector3(poseSample(t: Int64(i + 1) * 10, phi: phi, theta: 0)), length: 9.81, since: Double(i + 1) * 10 - 5)
        }
        #expect(r.readings == 5 && r.sinceMs == 0)
        // A reading 10 % longer breaks it.
        r.observe(Vector3(poseSample(t: 60, phi: 0, theta: 0, g: 9.81 * 1.1)), length: 9.81 * 1.1, since: 55)
        #expect(r.readings == 1 && r.sinceMs == 55)
    }

    @Test("the in-plane measure sees a turn of φ and nothing of the elevation or the length")
    func inPlaneChord() {
        let upright = Vector3(x: 0, y: -9.81, z: 0)
        // Pushed along the screen normal, and longer: φ is unchanged.
        #expect(AccelerometerGravity.inPlaneChord(Vector3(x: 0, y: -12, z: 6), upright) < 1e-12)
        // φ turned by 90°: the chord between unit vectors 90° apart, √2.
        #expect(abs(AccelerometerGravity.inPlaneChord(Vector3(x: -3, y: 0, z: 5), upright) - 2.0.squareRoot()) < 1e-12)
        // Flat: no direction in the plane, the most disturbed there is.
        #expect(AccelerometerGravity.inPlaneChord(Vector3(x: 0, y: 0, z: 9.81), upright) == 2)
    }

    @Test("a toward-flat sweep whose elevation is no longer read holds calm only while its peak decays")
    func flatwardSweepRestarts() {
        // 100 Hz: the screen leaned back from upright at 200°/s for 200 ms (three times
        // FlatwardRateDegS); at the last reading its own level holds calm for as long as
        // it lasts.
        var sweep = FlatwardSweep(tunables: .default)
        for t in stride(from: 0.0, through: 200, by: 10) {
            sweep.observe(sinElevation: EngineMath.sinDegrees(0.2 * t), at: t, dtMs: 10)
        }
        #expect(sweep.calmFromMs == .infinity)
        // Its source no longer read (a gyroscope's attitude not integrated, or given up):
        // the level seen last does not stand for ever; the peak decays as before.
        sweep.restart()
        let from = sweep.calmFromMs
        #expect(from.isFinite && from > 200 && from < 200 + 3 * EngineTunables.default.disturbanceDecayMs, "\(from)")
        // Read again, it starts from the new elevation: no jump is taken for a sweep.
        sweep.observe(sinElevation: EngineMath.sinDegrees(10), at: 1000, dtMs: 800)
        #expect(sweep.calmFromMs <= 1000)
    }

    @Test("a candidate counts the readings that propose it and starts over on another")
    func candidate() {
        var c = Candidate<Orientation>()
        c.propose(.leftUp, since: 90)
        c.propose(.leftUp, since: 110)
        #expect(c.value == .leftUp && c.readings == 2 && c.sinceMs == 90)
        c.propose(.rightUp, since: 130)
        #expect(c.value == .rightUp && c.readings == 1 && c.sinceMs == 130)
        c.propose(nil, since: 150)
        #expect(c.value == nil && c.readings == 0)
    }

    @Test("a candidate confirmed by enough readings survives one reading that proposes nothing, lapsed, and not two")
    func candidateForgivesOnce() {
        var c = Candidate<Orientation>()
        c.propose(.leftUp, since: 50)
        // Too few readings yet: not forgiven.
        c.propose(nil, since: 150, forgivingAfter: 2)
        #expect(c.value == nil)
        c.propose(.leftUp, since: 250)
        c.propose(.leftUp, since: 350)
        c.propose(nil, since: 450, forgivingAfter: 2)
        #expect(c.value == .leftUp && c.lapsed && c.readings == 2 && c.sinceMs == 250)
        // Proposed again: it goes on from where it began.
        c.propose(.leftUp, since: 550)
        #expect(c.value == .leftUp && !c.lapsed && c.readings == 3 && c.sinceMs == 250)
        // Two readings in a row that propose nothing end it.
        c.propose(nil, since: 650, forgivingAfter: 2)
        c.propose(nil, since: 750, forgivingAfter: 2)
        #expect(c.value == nil && !c.lapsed)
        // Without forgiveness (the default) one ends it.
        c.propose(.leftUp, since: 850)
        c.propose(.leftUp, since: 950)
        c.propose(nil, since: 1050)
        #expect(c.value == nil)
    }
}

/// Near flat, only a rest decides.
@Suite("Calm elevation")
struct CalmElevationTests {
    /// Normal at the given elevation for 1 s at 50 Hz, then right-up at that elevation with
    /// `tremor` degrees of alternating wobble (no rest when it exceeds RestAngleDeg from
    /// the mean) for 2 s.
    func turned(elevation: Double, tremor: Double) -> Orientation {
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: elevation)); t += 20 }
        var i = 0
        while t < 3000 {
            e.feed(poseSample(t: t, phi: 90 + (i % 2 == 0 ? tremor : -tremor), theta: elevation))
            t += 20
            i += 1
        }
        return e.orientation
    }

    @Test("leaned back past CalmElevationDeg, a wobbling hand's turn is not decided; held still it is")
    func onlyRestDecidesNearFlat() {
        let elevation = EngineTunables.default.calmElevationDeg + 2
        #expect(turned(elevation: elevation, tremor: 7) == .normal)
        #expect(turned(elevation: elevation, tremor: 0) == .rightUp)
        // Below CalmElevationDeg the same wobbling turn is decided by calm.
        #expect(turned(elevation: EngineTunables.default.calmElevationDeg - 15, tremor: 7) == .rightUp)
    }
}

/// A proposal only just past the leave angle must stand `EdgeSettleMs`.
@Suite("Edge of the leave angle")
struct EdgeTests {
    /// Upright in normal for 1 s, turned in 200 ms to φ = `phi`, held there still for
    /// `holdMs` (its elevation wobbling by ±`wobble`° from reading to reading: calm, but
    /// no rest, once that exceeds RestAngleDeg), turned back in 200 ms and held for 1 s, at
    /// 50 Hz: the orientations reported, and when right-up was first.
    func hold(phi: Double, holdMs: Int64, wobble: Double = 0,
              tunables: EngineTunables = .default) -> (seen: [Orientation], rightUpAt: Int64?) {
        var e = OrientationEngine(tunables: tunables)
        var seen: [Orientation] = []
        var rightUpAt: Int64?
        let arrive: Int64 = 1200, leave = arrive + holdMs
        func angle(_ t: Int64) -> Double {
            switch t {
            case ..<1000: 0
            case ..<arrive: phi * Double(t - 1000) / 200
            case ..<leave: phi
            case ..<(leave + 200): phi * Double(leave + 200 - t) / 200
            default: 0
            }
        }
        var t: Int64 = 0
        while t < leave + 1200 {
            let theta = t >= arrive && t < leave ? (t / 20 % 2 == 0 ? wobble : -wobble) : 0
            e.feed(poseSample(t: t, phi: angle(t), theta: theta))
            if seen.last != e.orientation { seen.append(e.orientation) }
            if e.orientation == .rightUp && rightUpAt == nil { rightUpAt = t }
            t += 20
        }
        return (seen, rightUpAt)
    }

    @Test("a hand held for a moment only just past the leave angle is no turn; held longer, or deeper, it is")
    func edgeNeedsLonger() throws {
        let leave = 45 + EngineTunables.default.orientationHysteresisDeg
        // 2° past the leave angle for 200 ms: a rest, but at the edge.
        #expect(hold(phi: leave + 2, holdMs: 200).seen == [.normal], "\(hold(phi: leave + 2, holdMs: 200).seen)")
        // Without the rule, the same moment is committed.
        var off = EngineTunables.default
        off.edgeDeg = 0
        #expect(hold(phi: leave + 2, holdMs: 200, tunables: off).seen.contains(.rightUp))
        // The same for calm: a hand wobbling there, never at rest.
        #expect(hold(phi: leave + 2, holdMs: 300, wobble: 6).seen == [.normal])
        #expect(hold(phi: leave + 2, holdMs: 300, wobble: 6, tunables: off).seen.contains(.rightUp))
        // Held there for 500 ms, it is a turn, decided once it has stood EdgeSettleMs.
        let held = hold(phi: leave + 2, holdMs: 500)
        let at = try #require(held.rightUpAt)
        #expect(at >= 1200 + Int64(EngineTunables.default.edgeSettleMs) - 50 && at <= 1200 + 400, "\(at)")
        // Deeper than EdgeDeg past it, a rest decides at once.
        let deep = try #require(hold(phi: 80, holdMs: 200).rightUpAt)
        #expect(deep <= 1200 + 150, "\(deep)")
    }
}

/// The power of ten a wildly mis-scaled sensor is judged against before its first rest.
@Suite("Nearest power of ten")
struct NearestPowerOfTenTests {
    @Test("the power of ten nearest a ratio, and 1 for a ratio that is no positive finite number")
    func nearest() {
        #expect(GravityMagnitude.nearestPowerOfTen(1) == 1)
        #expect(GravityMagnitude.nearestPowerOfTen(26) == 10)
        #expect(GravityMagnitude.nearestPowerOfTen(0.012) == 0.01)
        #expect(GravityMagnitude.nearestPowerOfTen(3000) == 1000)
        #expect(GravityMagnitude.nearestPowerOfTen(4000) == 10000)
        // Each of these would loop for ever in the search.
        for r in [Double.infinity, 0, -3, .nan, -.infinity] {
            #expect(GravityMagnitude.nearestPowerOfTen(r) == 1, "\(r)")
        }
    }
}
