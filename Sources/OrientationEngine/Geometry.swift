/// From a gravity direction to the angles, zones and labels of the traces' README,
/// section 1: θ is the elevation of the screen normal above the horizon, φ the angle of
/// the screen's up direction from its top edge toward its right edge.
struct Geometry: Sendable {
    /// Where the screen normal points, for the orientation decision.
    enum Zone: Sendable {
        /// Between `MinElevationDeg` and `MaxElevationDeg`: orientation is decided.
        case free
        /// Lying (nearly) flat, either way up.
        case flat
        /// Screen toward the floor beyond `MinElevationDeg`: held overhead.
        case overhead
    }

    /// φ and θ in degrees, and the zone.
    struct Angles: Sendable {
        var phi: Double
        var elevation: Double
        var zone: Zone
    }

    let maxElevationDeg: Double
    let minElevationDeg: Double
    /// How far φ must be from the current orientation's centre to leave it: 45° plus
    /// `OrientationHysteresisDeg`.
    let leaveAngleDeg: Double
    let tiltHysteresisDeg: Double

    init(tunables t: EngineTunables) {
        maxElevationDeg = t.maxElevationDeg
        minElevationDeg = t.minElevationDeg
        leaveAngleDeg = 45 + t.orientationHysteresisDeg
        tiltHysteresisDeg = t.tiltHysteresisDeg
    }

    func angles(_ g: Vector3) -> Angles {
        let horizontal = (g.x * g.x + g.y * g.y).squareRoot()
        let elevation = EngineMath.atan2Degrees(g.z, horizontal)
        let phi = EngineMath.atan2Degrees(-g.x, -g.y)
        let zone: Zone = !(abs(elevation) < maxElevationDeg) || horizontal == 0 ? .flat
            : elevation <= minElevationDeg ? .overhead : .free
        return Angles(phi: phi, elevation: elevation, zone: zone)
    }

    /// The orientation gravity `g` argues for, given the `current` one: none outside the
    /// free zone; the nearest once φ is more than the leave angle from the current
    /// orientation's centre (at once when there is none); else the current one.
    func proposal(_ a: Angles, current: Orientation) -> Orientation? {
        guard a.zone == .free else { return nil }
        if current == .undefined || abs(EngineMath.wrapDegrees(a.phi - Self.centre(current))) > leaveAngleDeg {
            return Self.nearest(a.phi)
        }
        return current
    }

    /// Distance of φ from an orientation's centre, in degrees.
    static func offCentre(_ phi: Double, _ o: Orientation) -> Double {
        abs(EngineMath.wrapDegrees(phi - centre(o)))
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

    /// Tilt label for an elevation θ (degrees). With a current state, the thresholds of
    /// that state's own band are moved `TiltHysteresisDeg` away from it (it is left only
    /// clearly past its edge; a reading far beyond is judged by the plain thresholds);
    /// without one, the plain thresholds apply: |θ| ≤ 20 vertical, 20 < θ < 70
    /// tilted-up, θ ≥ 70 face-up (and mirrored below).
    func tilt(_ theta: Double, current: Tilt?) -> Tilt {
        let h = current == nil || current == .undefined ? 0 : tiltHysteresisDeg
        let level = current.map(Self.levelIndex) ?? 2
        // Boundary j separates level j and j + 1 (0 face-down ... 4 face-up). The current
        // level's own edges: from above at b − h, from below at b + h.
        func passed(_ j: Int, _ b: Double, inclusive: Bool) -> Bool {
            let edge = j == level - 1 ? b - h : j == level ? b + h : b
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
}
