import OrientationAPI

/// From a gravity direction to the zones, orientations and tilt labels of the traces'
/// README, section 1: θ is the elevation of the screen normal above the horizon, φ the
/// angle of the screen's up direction from its top edge toward its right edge.
///
/// Every decision is a comparison of the vector's components with sines and cosines
/// worked out once, at init: no angle is computed per reading (``angles(_:)`` is for
/// explanations only, ``depthDeg(_:in:)`` for a proposal just after a rest). The
/// engine's budget is millions of readings a second.
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

    /// A gravity direction as the decisions need it: the sine of its elevation, its part
    /// in the screen's plane toward the right edge (`right`, sin φ) and toward the top
    /// edge (`top`, cos φ), both times the plane's share `plane` (cos θ), and its zone.
    struct Pose: Sendable {
        var sinElevation: Double
        var right: Double
        var top: Double
        var plane: Double
        var zone: Zone
    }

    /// φ and θ in degrees, for explanations.
    struct Angles: Sendable {
        var phi: Double
        var elevation: Double
    }

    let maxElevationDeg: Double
    let minElevationDeg: Double
    /// How far φ must be from the current orientation's centre to leave it: 45° plus
    /// `OrientationHysteresisDeg`.
    let leaveAngleDeg: Double
    private let sinMaxElevation: Double
    private let sinMinElevation: Double
    private let cosLeave: Double
    /// The cosine of the leave angle plus `EdgeDeg`: nearer the current centre than this,
    /// a proposal is at the edge.
    private let cosEdge: Double
    /// The sines of the four tilt boundaries (−70, −20, 20, 70) as each state sees them,
    /// four to a row: row 0 with no state (the plain thresholds), rows 1–5 face-down …
    /// face-up, each with its own band's edges moved `TiltHysteresisDeg` away from it.
    /// One row per state: the tilt of a pose is then four comparisons.
    private let tiltEdges: [Double]

    init(tunables t: EngineTunables) {
        maxElevationDeg = t.maxElevationDeg
        minElevationDeg = t.minElevationDeg
        leaveAngleDeg = 45 + t.orientationHysteresisDeg
        sinMaxElevation = EngineMath.sinDegrees(t.maxElevationDeg)
        sinMinElevation = EngineMath.sinDegrees(t.minElevationDeg)
        cosLeave = EngineMath.cosDegrees(leaveAngleDeg)
        cosEdge = EngineMath.cosDegrees(min(180, leaveAngleDeg + t.edgeDeg))
        let h = t.tiltHysteresisDeg
        let boundaries = [-70.0, -20, 20, 70]
        // Boundary j separates level j and j + 1 (0 face-down ... 4 face-up); row r is
        // level r − 1's view. A level is left from above at b − h, from below at b + h.
        tiltEdges = (0..<6).flatMap { row in
            boundaries.indices.map { j in
                let b = boundaries[j]
                return EngineMath.sinDegrees(j == row - 2 ? b - h : j == row - 1 ? b + h : b)
            }
        }
    }

    /// The pose of a direction `g`: a unit vector (every estimate's is one, ``Vector3/unit``),
    /// or zero. Not normalised again here: a square root and a division, six poses a
    /// reading, were a seventh of the engine's time, waiting on each other.
    func pose(_ g: Vector3) -> Pose {
        assert(g == .zero || abs(g.lengthSquared - 1) < 1e-9, "pose of a vector that is not a direction")
        let plane = (g.x * g.x + g.y * g.y).squareRoot()
        let s = g.z
        let zone: Zone = plane == 0 || !(abs(s) < sinMaxElevation) ? .flat : s <= sinMinElevation ? .overhead : .free
        return Pose(sinElevation: s, right: -g.x, top: -g.y, plane: plane, zone: zone)
    }

    /// The orientation a pose argues for, given the `current` one: none outside the free
    /// zone; the nearest once φ is more than the leave angle from the current
    /// orientation's centre (at once when there is none); else the current one.
    func proposal(_ p: Pose, current: Orientation) -> Orientation? {
        guard p.zone == .free else { return nil }
        if current == .undefined || Self.towardCentre(p, of: current) < cosLeave * p.plane {
            return Self.nearest(p)
        }
        return current
    }

    /// How far inside orientation `o`'s sector a pose is, in degrees of φ: 45 at its
    /// centre, 0 on the boundary, negative outside. One arc tangent: for the pick-up
    /// allowance only, while a proposal waits (``Judge``).
    func depthDeg(_ p: Pose, in o: Orientation) -> Double {
        let across = switch o {
        case .normal, .bottomUp, .undefined: p.right
        case .rightUp, .leftUp: p.top
        }
        return 45 - EngineMath.atan2Degrees(abs(across), Self.towardCentre(p, of: o))
    }

    /// Whether a pose is less than `EdgeDeg` past the leave angle from `current`'s centre
    /// (never with no current orientation).
    func atEdge(_ p: Pose, leaving current: Orientation) -> Bool {
        current != .undefined && Self.towardCentre(p, of: current) > cosEdge * p.plane
    }

    /// The in-plane part of a pose along an orientation's centre: cos(φ − centre) times
    /// the plane's share.
    private static func towardCentre(_ p: Pose, of o: Orientation) -> Double {
        switch o {
        case .normal, .undefined: p.top
        case .rightUp: p.right
        case .bottomUp: -p.top
        case .leftUp: -p.right
        }
    }

    /// The orientation whose centre is nearest: φ within ±45° of 0 normal, (45, 135]
    /// right-up, [−135, −45) left-up, else bottom-up.
    static func nearest(_ p: Pose) -> Orientation {
        let r = p.right, t = p.top
        if t >= abs(r) { return .normal }
        if r > 0 && r > abs(t) || r > 0 && r == -t { return .rightUp }
        if r < 0 && -r > abs(t) || r < 0 && r == t { return .leftUp }
        return .bottomUp
    }

    /// Tilt label for a pose. With a current state, the thresholds of that state's own
    /// band are moved `TiltHysteresisDeg` away from it (it is left only clearly past its
    /// edge; a reading far beyond is judged by the plain thresholds); without one, the
    /// plain thresholds apply: |θ| ≤ 20 vertical, 20 < θ < 70 tilted-up, θ ≥ 70 face-up
    /// (and mirrored below).
    func tilt(_ p: Pose, current: Tilt?) -> Tilt {
        let s = p.sinElevation
        let r = 4 * Self.tiltRow(current)
        // The edges rise (TiltHysteresisDeg < 20 keeps them apart): the number passed is
        // the level. On a plain threshold itself: ±20 is vertical, 70 face-up, −70
        // face-down (the second and fourth edges are passed from them on, the others not).
        var n = s > tiltEdges[r] ? 1 : 0
        if s >= tiltEdges[r + 1] { n += 1 }
        if s > tiltEdges[r + 2] { n += 1 }
        if s >= tiltEdges[r + 3] { n += 1 }
        switch n {
        case 0: return .faceDown
        case 1: return .tiltedDown
        case 2: return .vertical
        case 3: return .tiltedUp
        default: return .faceUp
        }
    }

    /// The row of ``tiltEdges`` for a current state.
    private static func tiltRow(_ t: Tilt?) -> Int {
        switch t {
        case nil, .undefined?: 0
        case .faceDown?: 1
        case .tiltedDown?: 2
        case .vertical?: 3
        case .tiltedUp?: 4
        case .faceUp?: 5
        }
    }

    /// φ and θ of a direction, in degrees (explanations only).
    func angles(_ g: Vector3) -> Angles {
        let horizontal = (g.x * g.x + g.y * g.y).squareRoot()
        return Angles(phi: EngineMath.atan2Degrees(-g.x, -g.y), elevation: EngineMath.atan2Degrees(g.z, horizontal))
    }
}
