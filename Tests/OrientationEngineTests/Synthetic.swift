import Foundation
@testable import OrientationEngine
import TestSupport
import OrientationAPI

/// Deterministic synthetic motion for tests: a pose (φ, θ) as a function of time, sampled
/// at any rate, with optional noise, jitter and shakes.
struct Motion {
    /// Key poses: time in ms, roll angle φ and elevation θ in degrees (README section 1).
    /// Between keys the pose moves with a smooth (minimum-jerk) profile.
    var keys: [(t: Double, phi: Double, theta: Double)]
    /// Extra accelerations: start ms, duration ms, vector in m/s² at the peak (half-sine).
    var pulses: [(t: Double, dur: Double, ax: Double, ay: Double, az: Double)] = []

    var endMs: Double { keys.last!.t }

    func pose(at t: Double) -> (phi: Double, theta: Double) {
        guard let i = keys.lastIndex(where: { $0.t <= t }) else { return (keys[0].phi, keys[0].theta) }
        if i == keys.count - 1 { return (keys[i].phi, keys[i].theta) }
        let a = keys[i], b = keys[i + 1]
        let u = (t - a.t) / (b.t - a.t)
        let s = u * u * u * (10 - 15 * u + 6 * u * u)
        return (a.phi + s * (b.phi - a.phi), a.theta + s * (b.theta - a.theta))
    }

    func gravity(at t: Double) -> (Double, Double, Double) {
        let p = pose(at: t)
        let phi = p.phi * .pi / 180, theta = p.theta * .pi / 180
        var v = (-sin(phi) * cos(theta) * 9.81, -cos(phi) * cos(theta) * 9.81, sin(theta) * 9.81)
        for q in pulses where t >= q.t && t < q.t + q.dur {
            let s = sin(.pi * (t - q.t) / q.dur)
            v.0 += s * q.ax
            v.1 += s * q.ay
            v.2 += s * q.az
        }
        return v
    }

    /// Samples at `hz`, timestamps jittered by up to ±`jitter` of the interval, Gaussian
    /// noise of `noise` m/s², deterministic for a seed.
    func samples(hz: Double, noise: Double = 0, jitter: Double = 0, seed: UInt64 = 1) -> [Sample] {
        var rng = SplitMix(seed: seed)
        var out: [Sample] = []
        let dt = 1000 / hz
        var k = 0.0
        var lastT: Int64 = -1
        while k * dt <= endMs {
            var t = k * dt
            if jitter > 0 && k > 0 { t += (rng.uniform() * 2 - 1) * jitter * dt }
            k += 1
            let ti = Int64(t.rounded())
            if ti <= lastT { continue }
            lastT = ti
            let g = gravity(at: Double(ti))
            out.append(Sample(timeMs: ti,
                              x: g.0 + noise * rng.gaussian(),
                              y: g.1 + noise * rng.gaussian(),
                              z: g.2 + noise * rng.gaussian()))
        }
        return out
    }
}

/// A change reported by the engine.
struct Change: Equatable, CustomStringConvertible {
    var t: Int64
    var orientation: Orientation
    var tilt: Tilt
    var description: String { "\(t),\(orientation.rawValue),\(tilt.rawValue)" }
}

/// Run samples through a fresh engine and collect the changes.
func replay(_ samples: [Sample], tunables: EngineTunables = .default) -> [Change] {
    var engine = OrientationEngine(tunables: tunables)
    var out: [Change] = []
    for s in samples where engine.feed(s) {
        out.append(Change(t: s.timeMs, orientation: engine.orientation, tilt: engine.tilt))
    }
    return out
}

/// The state in effect at time t (changes at exactly t apply).
func state(at t: Int64, in changes: [Change]) -> (Orientation, Tilt) {
    var o = Orientation.undefined, ti = Tilt.undefined
    for c in changes where c.t <= t {
        o = c.orientation
        ti = c.tilt
    }
    return (o, ti)
}

/// Rotate the device by 90° clockwise (seen facing the screen) `quarters` times: the
/// reading (x, y) becomes (y, −x), so normal becomes right-up.
func rotateSample(_ s: Sample, quarters: Int) -> Sample {
    var r = s
    for _ in 0..<quarters {
        (r.x, r.y) = (r.y, -r.x)
    }
    return r
}

func rotateOrientation(_ o: Orientation, quarters: Int) -> Orientation {
    var r = o
    for _ in 0..<quarters {
        switch r {
        case .normal: r = .rightUp
        case .rightUp: r = .bottomUp
        case .bottomUp: r = .leftUp
        case .leftUp: r = .normal
        case .undefined: r = .undefined
        }
    }
    return r
}

/// A gravity-only sample for a pose (φ, θ) in degrees.
func poseSample(t: Int64, phi: Double, theta: Double, g: Double = 9.81) -> Sample {
    let p = phi * .pi / 180, th = theta * .pi / 180
    return Sample(timeMs: t, x: -sin(p) * cos(th) * g, y: -cos(p) * cos(th) * g, z: sin(th) * g)
}

/// Upright in normal (leaned back 10°) for the first second, then laid face up (88°)
/// over 300 ms and left there: the reading at `t`.
func uprightThenFaceUp(t: Int64) -> Sample {
    poseSample(t: t, phi: 0, theta: t < 1000 ? 10 : 10 + 78 * min(1, Double(t - 1000) / 300))
}

/// A gyroscope reading of (`x`, `y`, `z`) rad/s at `t` with a real gyroscope's noise:
/// it never repeats a reading exactly (one that does is stuck).
func noisyGyroscope(t: Int64, x: Double = 0, y: Double = 0, z: Double = 0) -> GyroscopeSample {
    let time = Double(t)
    return GyroscopeSample(timeMs: t, x: x + 0.002 * sin(time * 0.37), y: y + 0.002 * cos(time * 0.53), z: z)
}

/// The orientation changes among `c` (repeats of the same orientation dropped).
func orientationChanges(_ c: [Change]) -> [(Int64, Orientation)] {
    var out: [(Int64, Orientation)] = []
    for x in c where out.last?.1 != x.orientation { out.append((x.t, x.orientation)) }
    return out
}

/// The tilt changes among `c`.
func tiltChanges(_ c: [Change]) -> [(Int64, Tilt)] {
    var out: [(Int64, Tilt)] = []
    for x in c where out.last?.1 != x.tilt { out.append((x.t, x.tilt)) }
    return out
}
