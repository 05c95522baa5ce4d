/// Turns timestamped accelerometer samples into an orientation and a tilt.
///
/// The engine is a plain value: no clocks (time comes with the samples), no I/O, no
/// allocation per sample. The daemon and `orientationctl replay` feed it the same way.
///
/// ## How it decides
///
/// 1. **Gravity estimate.** A first-order low-pass filter with time constant
///    `GravityFilterMs` follows the acceleration vector. The filter gain is computed from
///    the real interval between samples (1 − e^(−Δt/τ)), so it is the same filter at any
///    rate, with jitter and across gaps. Each sample's gain is scaled down by how far its
///    magnitude differs from 1 g (weight 1 / (1 + (Δ/`AccelerationToleranceG`)²)):
///    shakes, taps, bumps and lever-arm forces move the estimate much less than samples
///    that look like gravity.
/// 2. **Shocks.** A sample farther than `ShockThresholdG` from the gravity estimate (the
///    apparent linear acceleration of a shake, tap, knock or bump) holds every change off
///    until `ShockHoldMs` after the last such sample (less half its interval: the motion
///    happened somewhere within it), so the filter has forgotten it.
/// 3. **Angles.** From the estimate: the elevation θ of the screen normal above the
///    horizon, and the roll angle φ of the screen's up direction (README section 1).
/// 4. **Orientation.** Only while |θ| < `MaxElevationDeg` (otherwise the device is flat
///    and keeps its orientation). The current orientation is left only when φ is more than
///    45° + `OrientationHysteresisDeg` away from its centre; the proposal is then the
///    orientation whose centre is nearest. A proposal must persist for
///    `OrientationSettleMs` of sample time before it is reported, and not within
///    `FlatExitMs` of the device having been flat.
/// 5. **Tilt.** From θ with the thresholds 20° and 70°, each moved by
///    `TiltHysteresisDeg` away from the current state, and its own settle time
///    `TiltSettleMs`.
/// 6. **First sample after reset** is decided at once, without hysteresis or settling:
///    nearest orientation (unless flat) and the plain tilt label.
public struct OrientationEngine: Sendable {
    /// The tunables this engine was made with.
    public let tunables: EngineTunables

    /// The reported orientation; `.undefined` until a sample that is not flat was seen.
    public private(set) var orientation: Orientation = .undefined
    /// The reported tilt; `.undefined` until the first sample.
    public private(set) var tilt: Tilt = .undefined

    // Derived constants.
    private let leaveAngleDeg: Double
    private let maxElevationDeg: Double
    private let invTolerance: Double
    private let invGravity: Double
    private let gravityFilterMs: Double
    private let maxIntervalMs: Double
    private let orientationSettleMs: Double
    private let flatExitMs: Double
    private let shockThreshold: Double
    private let shockHoldMs: Double
    private let tiltSettleMs: Double
    private let tiltHysteresisDeg: Double

    // Filter state.
    private var started = false
    private var lastTimeMs: Int64 = 0
    private var gx = 0.0, gy = 0.0, gz = 0.0
    private var cachedDt = -1.0
    private var cachedAlpha = 1.0
    private var cachedLagScale = 1.0

    // Decision state.
    private var orientationCandidate: Orientation = .undefined
    private var orientationElapsedMs = 0.0
    private var sinceFlatMs = Double.infinity
    private var sinceShockMs = Double.infinity
    private var tiltCandidate: Tilt = .undefined
    private var tiltElapsedMs = 0.0

    // For `explanation`.
    private var last = Trace()

    public init(tunables: EngineTunables = .default) {
        self.tunables = tunables
        leaveAngleDeg = 45 + tunables.orientationHysteresisDeg
        maxElevationDeg = tunables.maxElevationDeg
        invTolerance = 1 / tunables.accelerationToleranceG
        invGravity = 1 / tunables.standardGravity
        gravityFilterMs = tunables.gravityFilterMs
        maxIntervalMs = tunables.maxIntervalMs
        orientationSettleMs = tunables.orientationSettleMs
        flatExitMs = tunables.flatExitMs
        shockThreshold = tunables.shockThresholdG
        shockHoldMs = tunables.shockHoldMs
        tiltSettleMs = tunables.tiltSettleMs
        tiltHysteresisDeg = tunables.tiltHysteresisDeg
    }

    /// Forget all history (called when the first client starts). Orientation and tilt go
    /// back to `.undefined`, and the next sample decides both at once.
    public mutating func reset() {
        started = false
        lastTimeMs = 0
        gx = 0; gy = 0; gz = 0
        orientation = .undefined
        tilt = .undefined
        orientationCandidate = .undefined
        orientationElapsedMs = 0
        sinceFlatMs = .infinity
        sinceShockMs = .infinity
        tiltCandidate = .undefined
        tiltElapsedMs = 0
        last = Trace()
    }

    /// Feed one sample. Returns true when the orientation or the tilt changed.
    ///
    /// Samples with a non-finite component, or too large to square, are ignored (no state
    /// change, not even of the clock). A timestamp that does not increase counts as no time
    /// passing. A first sample that reads (almost) zero, as in free fall, is ignored.
    @discardableResult
    public mutating func feed(_ sample: Sample) -> Bool {
        let x = sample.x, y = sample.y, z = sample.z
        let m2 = x * x + y * y + z * z
        guard m2.isFinite else { return false }
        let m = m2.squareRoot()
        let before = (orientation, tilt)

        if !started {
            // The first sample decides at once. Free fall carries no direction: wait.
            guard m * invGravity > 0.1 else { return false }
            started = true
            lastTimeMs = sample.timeMs
            gx = x; gy = y; gz = z
            let a = angles()
            orientation = a.flat ? .undefined : Self.nearest(a.phi)
            sinceFlatMs = a.flat ? 0 : .infinity
            tilt = tiltLevel(a.elevation, current: nil)
            last = Trace(timeMs: sample.timeMs, x: x, y: y, z: z, magnitudeG: m * invGravity, weight: 1,
                         gx: gx, gy: gy, gz: gz, phi: a.phi, elevation: a.elevation, flat: a.flat,
                         proposedOrientation: orientation, orientationCandidate: .undefined,
                         orientationElapsedMs: 0, proposedTilt: tilt, tiltCandidate: .undefined,
                         tiltElapsedMs: 0, firstSample: true)
            return orientation != .undefined || tilt != .undefined
        }

        // Elapsed time; a non-increasing timestamp counts as no time.
        let dtRaw = Double(sample.timeMs) - Double(lastTimeMs)
        let dt = dtRaw > 0 ? dtRaw : 0
        lastTimeMs = sample.timeMs

        // Gravity filter: gain from the real interval, scaled by how much the sample
        // looks like gravity.
        if dt != cachedDt {
            cachedDt = dt
            cachedAlpha = gravityFilterMs > 0 ? 1 - EngineMath.expNeg(dt / gravityFilterMs) : 1
            // A steady turn puts the sample ω·Δt/α away from the estimate before the update;
            // a continuous filter would lag by ω·τ. Rescale so the shock test is the same
            // at every rate (1 at high rates, 0.37 at 10 Hz with τ = 40 ms).
            cachedLagScale = dt > 0 && gravityFilterMs > 0 ? min(1, gravityFilterMs * cachedAlpha / dt) : 1
        }
        let magnitudeError = m * invGravity - 1
        let dev = magnitudeError * invTolerance
        let weight = 1 / (1 + dev * dev)
        let alpha = cachedAlpha * weight
        let lx = x - gx, ly = y - gy, lz = z - gz
        let linear = (lx * lx + ly * ly + lz * lz).squareRoot() * invGravity * cachedLagScale
        gx += alpha * lx
        gy += alpha * ly
        gz += alpha * lz

        let credit = dt < maxIntervalMs ? dt : maxIntervalMs
        if linear > shockThreshold {
            // What put the sample this far from the estimate happened during the last
            // interval: credit half of it, as for a boundary crossing below. (At high
            // rates this is a few ms; at 10 Hz it keeps a fast quarter turn seen between
            // two polls from waiting a whole extra poll.)
            sinceShockMs = credit * 0.5
        } else {
            sinceShockMs += credit
        }
        let calm = sinceShockMs >= shockHoldMs && !estimateTooWeak
        let a = angles()

        // Orientation.
        var proposed = orientation
        var offCentre = 0.0
        var settledMs = -1.0
        if a.flat {
            orientationCandidate = .undefined
            orientationElapsedMs = 0
            sinceFlatMs = 0
        } else {
            // Leaving the flat zone happened somewhere in the last interval: credit half.
            sinceFlatMs += sinceFlatMs == 0 ? credit * 0.5 : credit
            if orientation == .undefined {
                proposed = Self.nearest(a.phi)
            } else {
                offCentre = abs(EngineMath.wrapDegrees(a.phi - Self.centre(orientation)))
                if offCentre > leaveAngleDeg { proposed = Self.nearest(a.phi) }
            }
            if proposed == orientation {
                orientationCandidate = .undefined
                orientationElapsedMs = 0
            } else {
                if proposed == orientationCandidate {
                    orientationElapsedMs += credit
                } else {
                    // The boundary was crossed somewhere in the last interval: credit half.
                    orientationCandidate = proposed
                    orientationElapsedMs = credit * 0.5
                }
                if orientationElapsedMs >= orientationSettleMs && sinceFlatMs >= flatExitMs && calm {
                    settledMs = orientationElapsedMs
                    orientation = proposed
                    orientationCandidate = .undefined
                    orientationElapsedMs = 0
                }
            }
        }

        // Tilt.
        let proposedTilt = tiltLevel(a.elevation, current: tilt)
        var tiltSettledMs = -1.0
        if proposedTilt == tilt {
            tiltCandidate = .undefined
            tiltElapsedMs = 0
        } else {
            if proposedTilt == tiltCandidate {
                tiltElapsedMs += credit
            } else {
                tiltCandidate = proposedTilt
                tiltElapsedMs = credit * 0.5
            }
            if tiltElapsedMs >= tiltSettleMs && calm {
                tiltSettledMs = tiltElapsedMs
                tilt = proposedTilt
                tiltCandidate = .undefined
                tiltElapsedMs = 0
            }
        }

        last = Trace(timeMs: sample.timeMs, x: x, y: y, z: z, magnitudeG: m * invGravity, weight: weight,
                     gx: gx, gy: gy, gz: gz, phi: a.phi, elevation: a.elevation, flat: a.flat,
                     offCentre: offCentre, sinceFlatMs: sinceFlatMs, sinceShockMs: sinceShockMs, settledMs: settledMs,
                     tiltSettledMs: tiltSettledMs, proposedOrientation: proposed, orientationCandidate: orientationCandidate,
                     orientationElapsedMs: orientationElapsedMs, proposedTilt: proposedTilt,
                     tiltCandidate: tiltCandidate, tiltElapsedMs: tiltElapsedMs, firstSample: false)
        return before != (orientation, tilt)
    }

    // MARK: - Geometry

    /// φ and θ of the gravity estimate, in degrees, and whether the device counts as flat.
    private func angles() -> (phi: Double, elevation: Double, flat: Bool) {
        let horizontal = (gx * gx + gy * gy).squareRoot()
        let elevation = EngineMath.atan2Degrees(gz, horizontal)
        let phi = EngineMath.atan2Degrees(-gx, -gy)
        return (phi, elevation, !(abs(elevation) < maxElevationDeg) || horizontal == 0)
    }

    /// Whether the gravity estimate is too short to trust (after a long free fall, the
    /// filter has been pulled toward zero): then nothing changes.
    private var estimateTooWeak: Bool {
        (gx * gx + gy * gy + gz * gz) * invGravity * invGravity < 0.25
    }

    /// Centre of an orientation's sector: φ in degrees.
    static func centre(_ o: Orientation) -> Double {
        switch o {
        case .normal, .undefined: 0
        case .rightUp: 90
        case .bottomUp: 180
        case .leftUp: -90
        }
    }

    /// The orientation whose centre is nearest to φ (degrees, −180...180).
    static func nearest(_ phi: Double) -> Orientation {
        if phi >= -45 && phi <= 45 { return .normal }
        if phi > 45 && phi <= 135 { return .rightUp }
        if phi < -45 && phi >= -135 { return .leftUp }
        return .bottomUp
    }

    /// Tilt label for an elevation θ (degrees). With a current state, each threshold is
    /// moved `TiltHysteresisDeg` away from it; without one, the plain thresholds apply:
    /// |θ| ≤ 20 vertical, 20 < θ < 70 tilted-up, θ ≥ 70 face-up (and mirrored below).
    private func tiltLevel(_ theta: Double, current: Tilt?) -> Tilt {
        let h = current == nil ? 0 : tiltHysteresisDeg
        let level = current.map(Self.levelIndex) ?? 2
        // Boundary j separates level j and j + 1 (0 face-down ... 4 face-up). From above it
        // is crossed at b − h, from below at b + h.
        func passed(_ j: Int, _ b: Double, inclusive: Bool) -> Bool {
            let edge = level > j ? b - h : b + h
            return inclusive ? theta >= edge : theta > edge
        }
        var n = 0
        if passed(0, -70, inclusive: false) { n += 1 }
        if passed(1, -20, inclusive: true) { n += 1 }
        if passed(2, 20, inclusive: false) { n += 1 }
        if passed(3, 70, inclusive: true) { n += 1 }
        switch n {
        case 0: return .faceDown
        case 1: return .tiltedDown
        case 2: return .vertical
        case 3: return .tiltedUp
        default: return .faceUp
        }
    }

    private static func levelIndex(_ t: Tilt) -> Int {
        switch t {
        case .faceDown: 0
        case .tiltedDown: 1
        case .vertical, .undefined: 2
        case .tiltedUp: 3
        case .faceUp: 4
        }
    }

    // MARK: - Explanation

    struct Trace: Sendable {
        var timeMs: Int64 = 0
        var x = 0.0, y = 0.0, z = 0.0
        var magnitudeG = 0.0
        var weight = 0.0
        var gx = 0.0, gy = 0.0, gz = 0.0
        var phi = 0.0
        var elevation = 0.0
        var flat = false
        var offCentre = 0.0
        var sinceFlatMs = Double.infinity
        var sinceShockMs = Double.infinity
        var settledMs = -1.0
        var tiltSettledMs = -1.0
        var proposedOrientation: Orientation = .undefined
        var orientationCandidate: Orientation = .undefined
        var orientationElapsedMs = 0.0
        var proposedTilt: Tilt = .undefined
        var tiltCandidate: Tilt = .undefined
        var tiltElapsedMs = 0.0
        var firstSample = false
        var valid: Bool { weight > 0 }
    }

    /// A human-readable account of the last sample's decision: the sample, the gravity
    /// estimate, the angles, the proposals and how long they have persisted. Meant for
    /// `orientationctl replay --explain` and bug reports; the format may change.
    public var explanation: String {
        let l = last
        guard l.valid else { return "no sample yet" }
        var s = "t=\(l.timeMs)ms"
        s += " sample=(\(fmt(l.x, 2)),\(fmt(l.y, 2)),\(fmt(l.z, 2))) |a|=\(fmt(l.magnitudeG, 3))g"
        s += " weight=\(fmt(l.weight, 3))"
        s += " gravity=(\(fmt(l.gx, 2)),\(fmt(l.gy, 2)),\(fmt(l.gz, 2)))"
        s += " phi=\(fmt(l.phi, 1))deg elevation=\(fmt(l.elevation, 1))deg"
        if l.firstSample {
            s += " first sample after reset: decided at once"
            s += l.flat ? " (flat: orientation undefined)" : " (nearest orientation)"
            return s + " -> \(orientation.rawValue),\(tilt.rawValue)"
        }
        if l.flat {
            s += " flat (|elevation| >= \(fmt(maxElevationDeg, 1))): orientation kept"
        } else {
            if l.proposedOrientation != .undefined {
                s += " off-centre=\(fmt(l.offCentre, 1))deg (leave at >\(fmt(leaveAngleDeg, 1)))"
                s += " proposed=\(l.proposedOrientation.rawValue)"
            }
            if l.sinceFlatMs < flatExitMs {
                s += " left flat \(fmt(l.sinceFlatMs, 0))/\(fmt(flatExitMs, 0))ms ago"
            }
        }
        if l.sinceShockMs < shockHoldMs {
            s += " shock \(fmt(l.sinceShockMs, 0))/\(fmt(shockHoldMs, 0))ms ago: holding"
        }
        if l.settledMs >= 0 {
            s += " orientation settled after \(fmt(l.settledMs, 0))/\(fmt(orientationSettleMs, 0))ms"
        }
        if l.tiltSettledMs >= 0 {
            s += " tilt settled after \(fmt(l.tiltSettledMs, 0))/\(fmt(tiltSettleMs, 0))ms"
        }
        if l.orientationCandidate != .undefined {
            s += " candidate=\(l.orientationCandidate.rawValue) for \(fmt(l.orientationElapsedMs, 0))"
            s += "/\(fmt(orientationSettleMs, 0))ms"
        }
        if l.tiltCandidate != .undefined {
            s += " tilt-candidate=\(l.tiltCandidate.rawValue) for \(fmt(l.tiltElapsedMs, 0))/\(fmt(tiltSettleMs, 0))ms"
        }
        return s + " -> \(orientation.rawValue),\(tilt.rawValue)"
    }
}

/// Fixed-point rendering without Foundation: `fmt(3.14159, 2)` is "3.14".
func fmt(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return String(v) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let r = (abs(v) * scale).rounded()
    guard r < 9.0e15 else { return String(v) }
    let n = Int64(r)
    let p = Int64(scale)
    var s = v < 0 && n != 0 ? "-" : ""
    s += String(n / p)
    if decimals > 0 {
        let frac = String(n % p)
        s += "." + String(repeating: "0", count: decimals - frac.count) + frac
    }
    return s
}
