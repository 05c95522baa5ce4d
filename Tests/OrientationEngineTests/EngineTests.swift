import Foundation
import Testing
@testable import OrientationEngine
import TestSupport
import OrientationAPI

@Suite("Rest poses and thresholds")
struct RestPoseTests {
    struct Pose: Sendable, CustomStringConvertible {
        var x, y, z: Double
        var orientation: Orientation
        var tilt: Tilt
        var description: String { "(\(x),\(y),\(z)) -> \(orientation.rawValue),\(tilt.rawValue)" }
    }

    // README section 1 table, plus the 60° leaned-back postures in every orientation.
    static let poses: [Pose] = [
        Pose(x: 0, y: -9.81, z: 0, orientation: .normal, tilt: .vertical),
        Pose(x: 0, y: 9.81, z: 0, orientation: .bottomUp, tilt: .vertical),
        Pose(x: 9.81, y: 0, z: 0, orientation: .leftUp, tilt: .vertical),
        Pose(x: -9.81, y: 0, z: 0, orientation: .rightUp, tilt: .vertical),
        Pose(x: 0, y: 0, z: 9.81, orientation: .undefined, tilt: .faceUp),
        Pose(x: 0, y: 0, z: -9.81, orientation: .undefined, tilt: .faceDown),
        Pose(x: 0, y: -4.9, z: 8.5, orientation: .normal, tilt: .tiltedUp),
        Pose(x: 0, y: 4.9, z: 8.5, orientation: .bottomUp, tilt: .tiltedUp),
        Pose(x: 4.9, y: 0, z: 8.5, orientation: .leftUp, tilt: .tiltedUp),
        Pose(x: -4.9, y: 0, z: 8.5, orientation: .rightUp, tilt: .tiltedUp),
        Pose(x: 0, y: -8.5, z: -4.9, orientation: .normal, tilt: .tiltedDown),
        // Off-centre but on the right side of 45°.
        Pose(x: -6.0, y: -7.7, z: 0.5, orientation: .normal, tilt: .vertical),
        Pose(x: -7.7, y: -6.0, z: 0.5, orientation: .rightUp, tilt: .vertical),
    ]

    @Test("first sample after start decides at once", arguments: poses)
    func firstSample(_ p: Pose) {
        var e = OrientationEngine()
        #expect(e.orientation == .undefined && e.tilt == .undefined)
        let changed = e.feed(Sample(timeMs: 1000, x: p.x, y: p.y, z: p.z))
        #expect(changed)
        #expect(e.orientation == p.orientation)
        #expect(e.tilt == p.tilt)
    }

    @Test("a steady pose stays put", arguments: poses)
    func steady(_ p: Pose) {
        var e = OrientationEngine()
        for k in 0..<200 {
            let changed = e.feed(Sample(timeMs: Int64(k * 20), x: p.x, y: p.y, z: p.z))
            #expect(changed == (k == 0))
        }
        #expect(e.orientation == p.orientation)
        #expect(e.tilt == p.tilt)
    }

    @Test("tilt thresholds 20° and 70° (first sample, no hysteresis)",
          arguments: [
            (0.0, Tilt.vertical), (19.5, .vertical), (-19.5, .vertical), (20.5, .tiltedUp), (45, .tiltedUp),
            (69.5, .tiltedUp), (70.5, .faceUp), (89, .faceUp), (-20.5, .tiltedDown), (-69.5, .tiltedDown),
            (-70.5, .faceDown), (-90, .faceDown),
          ])
    func tiltThresholds(theta: Double, expected: Tilt) {
        var e = OrientationEngine()
        e.feed(poseSample(t: 0, phi: 0, theta: theta))
        #expect(e.tilt == expected)
    }

    /// Holds each elevation for 1 s and returns the tilt at the end of each hold.
    func tiltPath(_ thetas: [Double]) -> [Tilt] {
        var e = OrientationEngine()
        var t: Int64 = 0
        var out: [Tilt] = []
        for th in thetas {
            for _ in 0..<50 {
                e.feed(poseSample(t: t, phi: 0, theta: th))
                t += 20
            }
            out.append(e.tilt)
        }
        return out
    }

    @Test("tilt hysteresis: 2° past each threshold to change, both ways")
    func tiltHysteresis() {
        #expect(tiltPath([10, 21, 23, 19, 17]) == [.vertical, .vertical, .tiltedUp, .tiltedUp, .vertical])
        #expect(tiltPath([60, 71, 73, 69, 67]) == [.tiltedUp, .tiltedUp, .faceUp, .faceUp, .tiltedUp])
        #expect(tiltPath([-10, -21, -23, -19, -17]) == [.vertical, .vertical, .tiltedDown, .tiltedDown, .vertical])
        #expect(tiltPath([-60, -71, -73, -69, -67]) == [.tiltedDown, .tiltedDown, .faceDown, .faceDown, .tiltedDown])
    }

    /// Holds each roll angle φ for 1 s and returns the orientation at the end of each hold.
    func rollPath(_ phis: [Double], theta: Double = 0) -> [Orientation] {
        var e = OrientationEngine()
        var t: Int64 = 0
        var out: [Orientation] = []
        for phi in phis {
            for _ in 0..<50 {
                e.feed(poseSample(t: t, phi: phi, theta: theta))
                t += 20
            }
            out.append(e.orientation)
        }
        return out
    }

    @Test("orientation hysteresis: a 45° wobble does not flip, 15° past the boundary does")
    func orientationHysteresis() {
        let h = EngineTunables.default.orientationHysteresisDeg
        #expect(rollPath([0, 44, 46, 45 + h - 2, 30, 0]) == [.normal, .normal, .normal, .normal, .normal, .normal])
        #expect(rollPath([0, 45 + h + 2, 46, 44, 45 - h + 2, 45 - h - 2])
                == [.normal, .rightUp, .rightUp, .rightUp, .rightUp, .normal])
        #expect(rollPath([0, -(45 + h + 2), 180, 90]) == [.normal, .leftUp, .bottomUp, .rightUp])
        // Leaned back 60° (reading posture): same rules.
        #expect(rollPath([0, 50, 65, 90, 180], theta: 60) == [.normal, .normal, .rightUp, .rightUp, .bottomUp])
    }

    @Test("flat keeps the orientation; undefined if the first sample is flat")
    func flat() {
        var e = OrientationEngine()
        var t: Int64 = 0
        func hold(_ phi: Double, _ theta: Double, ms: Int64 = 1000) {
            let end = t + ms
            while t < end {
                e.feed(poseSample(t: t, phi: phi, theta: theta))
                t += 10
            }
        }
        hold(0, 88)
        #expect(e.orientation == .undefined && e.tilt == .faceUp)
        hold(90, 10)
        #expect(e.orientation == .rightUp && e.tilt == .vertical)
        hold(90, -85)
        #expect(e.orientation == .rightUp && e.tilt == .faceDown)
        // Lying flat, the in-plane direction is meaningless: it must not change anything.
        hold(180, -85)
        hold(0, -88)
        #expect(e.orientation == .rightUp && e.tilt == .faceDown)
        hold(0, 30)
        #expect(e.orientation == .normal && e.tilt == .tiltedUp)
    }

    @Test("non-finite samples are ignored without any state change")
    func nonFinite() {
        var a = OrientationEngine(), b = OrientationEngine()
        let bad: [Double] = [.nan, .infinity, -.infinity, 1e200]
        for k in 0..<300 {
            let s = poseSample(t: Int64(k * 10), phi: k < 150 ? 0 : 90, theta: 20)
            let r1 = a.feed(s)
            for v in bad {
                let fed1 = b.feed(Sample(timeMs: s.timeMs + 5, x: v, y: 0, z: 0))
                let fed2 = b.feed(Sample(timeMs: s.timeMs + 5, x: 0, y: v, z: 1))
                let fed3 = b.feed(Sample(timeMs: s.timeMs + 5, x: 1, y: 2, z: v))
                #expect(!fed1 && !fed2 && !fed3)
            }
            let r2 = b.feed(s)
            #expect(r1 == r2)
            #expect(a.orientation == b.orientation && a.tilt == b.tilt)
        }
        #expect(a.orientation == .rightUp)
    }

    @Test("reset forgets history: the next sample decides at once")
    func reset() {
        var e = OrientationEngine()
        for k in 0..<100 { e.feed(poseSample(t: Int64(k * 10), phi: 0, theta: 0)) }
        #expect(e.orientation == .normal)
        e.reset()
        #expect(e.orientation == .undefined && e.tilt == .undefined)
        let fed = e.feed(Sample(timeMs: 2000, x: 0, y: 9.81, z: 0))
        #expect(fed)
        #expect(e.orientation == .bottomUp && e.tilt == .vertical)
        e.reset()
        let fed2 = e.feed(Sample(timeMs: 3000, x: 9.81, y: 0, z: 0))
        #expect(fed2)
        #expect(e.orientation == .leftUp)
    }

    @Test("free fall as the first sample decides nothing")
    func freeFallFirst() {
        var e = OrientationEngine()
        let fed = e.feed(Sample(timeMs: 0, x: 0, y: 0, z: 0))
        #expect(!fed)
        #expect(e.orientation == .undefined)
        let fed2 = e.feed(Sample(timeMs: 10, x: 0, y: -9.81, z: 0))
        #expect(fed2)
        #expect(e.orientation == .normal)
    }

    @Test("explanation names the angles and the decision")
    func explanation() {
        var e = OrientationEngine()
        #expect(e.explanation == "no sample yet")
        e.feed(Sample(timeMs: 0, x: 0, y: -9.81, z: 0))
        #expect(e.explanation.contains("phi=0.0deg"))
        #expect(e.explanation.contains("first sample"))
        #expect(e.explanation.hasSuffix("-> normal,vertical"))
    }
}

@Suite("Motion")
struct MotionTests {
    /// A trace with rotations, a leaned-back rotation, a shake and a put-down/pick-up.
    static let script = Motion(
        keys: [
            (0, 0, 5), (1500, 0, 5), (2100, 90, 5), (4000, 90, 5), (5000, 270, 10), (7000, 270, 10),
            (7800, 270, 60), (9000, 270, 60), (9600, 180, 60), (11000, 180, 60), (11800, 180, 88),
            (13500, 180, 88), (14300, 0, 10), (16000, 0, 10),
        ],
        pulses: [(3000, 120, 0, 20, 3), (6000, 80, 14, 0, 0), (12500, 100, 6, 0, 0)])

    static let expectedOrientations: [Orientation] = [.normal, .rightUp, .leftUp, .bottomUp, .normal]

    @Test("scripted motion gives the expected orientations, with no flicker")
    func scripted() {
        let changes = replay(Self.script.samples(hz: 100, noise: 0.08, seed: 7))
        var seen: [Orientation] = []
        for c in changes where seen.last != c.orientation { seen.append(c.orientation) }
        #expect(seen.first == .normal)
        #expect(seen.last == .normal)
        #expect(seen.contains(.rightUp) && seen.contains(.leftUp) && seen.contains(.bottomUp))
        #expect(state(at: 3900, in: changes).0 == .rightUp)
        #expect(state(at: 6900, in: changes).0 == .leftUp)
        #expect(state(at: 6900, in: changes).1 == .vertical)
        #expect(state(at: 8900, in: changes) == (.leftUp, .tiltedUp))
        #expect(state(at: 10900, in: changes) == (.bottomUp, .tiltedUp))
        #expect(state(at: 13400, in: changes) == (.bottomUp, .faceUp))
        #expect(state(at: 15900, in: changes) == (.normal, .vertical))
        // The shakes at 3000, 6000 and 12500 ms must not change the orientation.
        for c in changes {
            #expect(!(c.t > 3000 && c.t < 3800), "change during the shake: \(c)")
            #expect(!(c.t > 6000 && c.t < 6800), "change during the shake: \(c)")
            #expect(!(c.t > 12500 && c.t < 13400), "change while flat: \(c)")
        }
    }

    @Test("symmetry: the same motion rotated 90°/180°/270° about z gives rotated outputs",
          arguments: [1, 2, 3])
    func symmetry(quarters: Int) {
        let samples = Self.script.samples(hz: 50, noise: 0.1, jitter: 0.2, seed: 3)
        let base = replay(samples)
        let rotated = replay(samples.map { rotateSample($0, quarters: quarters) })
        let expected = base.map {
            Change(t: $0.t, orientation: rotateOrientation($0.orientation, quarters: quarters), tilt: $0.tilt)
        }
        #expect(rotated == expected)
    }

    /// A left-handed person makes the mirror image of a right-handed one's motion: the
    /// rules must have no handedness (the dev recordings mirrored score exactly as the
    /// originals; BENCHMARKS.md).
    @Test("symmetry: the same motion mirrored (x → −x) gives mirrored outputs, left-up and right-up swapped")
    func mirrorSymmetry() {
        // From each orientation, holds on either side of its leave angles (55–65° from
        // its centre, where a threshold that differed by side would show), then a turn
        // to the next; an elevation that wanders; noise and jitter.
        var keys: [(t: Double, phi: Double, theta: Double)] = [(0, 0, 10)]
        for centre in [0.0, 90, 180, 270] {
            for offset in [55.0, 59, 61, 65, -55, -59, -61, -65] {
                let t = keys.last!.t
                keys += [(t + 400, centre + offset, 20), (t + 1000, centre + offset, 20), (t + 1400, centre, 10),
                         (t + 1800, centre, 10)]
            }
            let t = keys.last!.t
            keys += [(t + 500, centre + 90, 10), (t + 1500, centre + 90, 10)]
        }
        let samples = Motion(keys: keys).samples(hz: 50, noise: 0.3, jitter: 0.2, seed: 5)
        let base = replay(samples)
        let mirrored = replay(samples.map { Sample(timeMs: $0.timeMs, x: -$0.x, y: $0.y, z: $0.z) })
        let swap: (Orientation) -> Orientation = { $0 == .leftUp ? .rightUp : $0 == .rightUp ? .leftUp : $0 }
        #expect(Set(base.map(\.orientation)).isSuperset(of: [.leftUp, .rightUp]), "the script turns both ways")
        #expect(mirrored == base.map { Change(t: $0.t, orientation: swap($0.orientation), tilt: $0.tilt) })
    }

    @Test("rate independence: 10, 50 and 200 Hz give the same decisions within one sample period plus 100 ms")
    func rateIndependence() {
        for jitter in [0.0, 0.3] {
            let runs = [10.0, 50, 200].map { hz in
                (hz, replay(Self.script.samples(hz: hz, noise: 0.05, jitter: jitter, seed: 11)))
            }
            let reference = runs[2].1  // 200 Hz
            for (hz, changes) in runs {
                // A change waits for the motion measures (steadiness, scatter), which are
                // low-pass filtered: at different rates they clear within one sample period
                // plus 100 ms of each other (a 180° turn's steadiness is the slowest).
                let period = Int64(1000 / hz * (1 + jitter)) + 5 + 100
                // Every state held for 400 ms or more at one rate is reported at the other rate
                // within one sample period. (Short transit states, such as the side orientation
                // a 180° turn passes or the tilted-up on the way from flat to upright, may or
                // may not show: their duration depends on the sample grid.)
                matched(orientationChanges(changes), orientationChanges(reference), period, "\(hz) Hz orientation")
                matched(orientationChanges(reference), orientationChanges(changes), period, "\(hz) Hz orientation")
                matched(tiltChanges(changes), tiltChanges(reference), period, "\(hz) Hz tilt")
                matched(tiltChanges(reference), tiltChanges(changes), period, "\(hz) Hz tilt")
                // And the same states at the end of every hold.
                for probe: Int64 in [1400, 3900, 6900, 8900, 10_900, 13_400, 15_900] {
                    #expect(state(at: probe, in: changes) == state(at: probe, in: reference), "\(hz) Hz at \(probe) ms")
                }
            }
        }
    }

    /// Every change in `a` to a state that then holds for at least 400 ms has a change to the
    /// same value in `b` within `period` ms.
    func matched<T: Equatable>(_ a: [(Int64, T)], _ b: [(Int64, T)], _ period: Int64, _ what: String) {
        for (i, x) in a.enumerated() {
            if i + 1 < a.count && a[i + 1].0 - x.0 < 400 { continue }
            let ok = b.contains { $0.1 == x.1 && abs($0.0 - x.0) <= period }
            #expect(ok, "\(what): \(x) has no counterpart within \(period) ms in \(b)")
        }
    }

    @Test("gaps of 0.6 s, gain and offset errors and coarse quantisation do not change the decisions")
    func robustness() {
        let clean = orientationChanges(replay(Self.script.samples(hz: 50, seed: 5))).map(\.1)
        var samples = Self.script.samples(hz: 50, noise: 0.1, jitter: 0.3, seed: 5)
        // Two 0.6 s dropouts in holds.
        samples.removeAll { ($0.timeMs > 2500 && $0.timeMs < 3100) || ($0.timeMs > 10_200 && $0.timeMs < 10_800) }
        let q = 0.153
        samples = samples.map {
            Sample(timeMs: $0.timeMs,
                   x: (($0.x * 1.05 + 0.3) / q).rounded() * q,
                   y: (($0.y * 0.95 - 0.25) / q).rounded() * q,
                   z: (($0.z * 1.03 + 0.2) / q).rounded() * q)
        }
        #expect(orientationChanges(replay(samples)).map(\.1) == clean)
    }

}
