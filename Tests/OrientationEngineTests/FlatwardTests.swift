import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine

/// A device tumbled through an orientation on its way to flat is not held there
/// (`FlatwardRateDegS`); a device picked up from flat is not held back.
@Suite("Toward flat")
struct FlatwardTests {
    /// 100 Hz: held upright (normal) for 1.5 s, laid face up for 1.5 s, then tumbled about
    /// its long axis through left-up, edge-on (elevation 0) at 3.2 s: fast while it comes up
    /// from flat (250°/s), slowing to `slowDegS` past the vertical, on to 60° face down
    /// and held there. With a gyroscope when `gyroscope` (its rate about y; the up vector
    /// (sin β, 0, cos β) turns at dβ/dt = −ω_y). Returns the orientation changes.
    func tumble(slowDegS: Double, gyroscope: Bool, tunables: EngineTunables = .default) -> [Orientation] {
        var e = OrientationEngine(tunables: tunables)
        var seen: [Orientation] = []
        /// The elevation at `t` (degrees), and its rate (degrees/s).
        func elevation(_ t: Double) -> (Double, Double) {
            let edgeOn = 3200.0, fast = 250.0
            let start = edgeOn - 88 / fast * 1000
            switch t {
            case ..<start: return (88, 0)
            case ..<edgeOn: return (88 - fast * (t - start) / 1000, -fast)
            default:
                let el = -slowDegS * (t - edgeOn) / 1000
                return el > -60 ? (el, -slowDegS) : (-60, 0)
            }
        }
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            let time = Double(t)
            // A hand's tremor (2–3°): never a rest, though slow.
            let n = Int(t / 10) % 4
            let sample: Sample
            if t < 1500 {
                sample = poseSample(t: t, phi: [0, 3, 0, -3][n], theta: 10)
            } else if t < 2000 {
                sample = poseSample(t: t, phi: 0, theta: 10 + 78 * (time - 1500) / 500)
            } else {
                let (el, rate) = elevation(time)
                sample = poseSample(t: t, phi: -90 + [0, 2, 0, -2][n], theta: el + [0, 3, 0, -3][n])
                if gyroscope {
                    let w = rate * .pi / 180
                    e.feedGyroscope(noisyGyroscope(t: t, y: w))
                }
            }
            if e.feed(sample), seen.last != e.orientation { seen.append(e.orientation) }
        }
        return seen
    }

    @Test("a tumble through left-up toward face-down, slowing past the vertical, keeps normal")
    func tumbleKeepsTheOrientation() {
        // 80°/s: within CalmAngleDeg of the gravity filter, and below GyroCalmRateDegS:
        // calm but for the rule.
        var off = EngineTunables.default
        off.flatwardRateDegS = 0
        for gyroscope in [false, true] {
            #expect(tumble(slowDegS: 80, gyroscope: gyroscope) == [.normal], "gyroscope: \(gyroscope)")
            #expect(tumble(slowDegS: 80, gyroscope: gyroscope, tunables: off) == [.normal, .leftUp],
                    "without the rule, gyroscope: \(gyroscope)")
        }
    }

    /// Lying face up (normal), then picked up into left-up, leaned back 20°, over
    /// `pickupMs`, and held with a hand's tremor. When left-up is reported, from the start
    /// of the pick-up.
    func pickup(pickupMs: Double, tunables: EngineTunables = .default) -> Int64? {
        var e = OrientationEngine(tunables: tunables)
        for t in stride(from: Int64(0), to: 4000, by: 10) {
            let n = Int(t / 10) % 4
            let k = min(1, Double(t - 2000) / pickupMs)
            let sample = t < 2000 ? uprightThenFaceUp(t: t) : poseSample(t: t, phi: -90 + [0, 2, 0, -2][n], theta: 88 - 68 * k)
            e.feed(sample)
            if e.orientation == .leftUp { return t - 2000 }
        }
        return nil
    }

    @Test("a pick-up from flat turns toward the vertical and is not held back")
    func pickupIsNotHeldBack() {
        var off = EngineTunables.default
        off.flatwardRateDegS = 0
        for ms in [200.0, 400, 700] {
            let with = pickup(pickupMs: ms)
            #expect(with != nil, "\(ms) ms pick-up")
            #expect(with == pickup(pickupMs: ms, tunables: off), "\(ms) ms pick-up")
        }
    }
}
