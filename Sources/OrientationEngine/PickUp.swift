import OrientationAPI

/// Whether the device is being picked up, and how much of a hand's shaking calm then
/// allows (`PickUpRestMs`, `PickUpMs`, `PickUpJoltG`, `LengthFilterMs`, `PickUpTurnDegS`).
///
/// People pick a device up from where it lay and set it into a pose; their hand shakes it
/// for half a second after it got there, its readings 10–30° about the pose. Calm waits for
/// that to end, since in general a reading far from the estimate may be a turn under way;
/// but an estimate that lies deep inside the proposed orientation's sector cannot be
/// carried out of it by an error smaller than its depth. So, for `PickUpMs` after a rest of
/// `PickUpRestMs`, calm allows the disturbance that depth (in `CalmAngleDeg`s) times cos θ
/// (a direction error δ moves φ by up to δ / cos θ), anywhere in the free zone (above
/// `CalmElevationDeg` too, where the cos θ has shrunk the allowance). The depth is read
/// from the readings' plain mean (``GravityEstimate/meanUp``): a shake in place averages
/// out of it, while the estimate weighted toward 1 g leans toward the shake's moments
/// that happen to be 1 g long. All this as long as
/// - the readings' *length* is calm: linear acceleration is not excused, and a jolt beyond
///   `PickUpJoltG` (a stride's landing) ends the pick-up: a run begun from standing still
///   is no pick-up. Both read the length error averaged over `LengthFilterMs`
///   (``GravityEstimate/meanLengthError``): a knock, or the hand's stop as it sets the
///   device into its pose, is one or two readings, and carries nothing;
/// - the readings' plain mean has stopped turning (``TurnSweep``, `PickUpTurnDegS`) and
///   the estimate's elevation sweeps neither way faster than `FlatwardRateDegS`: a half
///   turn passing an orientation, or a phone rolled over its edge that pauses edge-on, is
///   on its way. The turning is read from the plain mean, like the proposal: a device
///   lowered or raised as it turns reads less or more than 1 g, which the weighted
///   estimate takes in at a fraction of its pace, so it is still catching up, and seems
///   to turn, after the hand has stopped (calibration poses at 90–200 Hz: 167–183 →
///   75–87 ms).
///
/// A device moved about without a pause (a figure-eight in the air, a swinging arm, a
/// walk) is never picked up. With a gyroscope integrated there is no allowance: the
/// gyroscope tells a hand's shaking from a turn itself (`GyroCalmAngleDeg`).
struct PickUp: Sendable {
    private let restMs: Double
    private let windowMs: Double
    private let joltG: Double
    private let calmAngleDeg: Double
    private let gateToleranceMs: Double
    /// The run of unchanged readings at the last reading (``GravityEstimate/restSinceMs``):
    /// when it began, its last reading, how many readings it held and whether at 1 g.
    private var run = (sinceMs: -Double.infinity, lastMs: -Double.infinity, readings: 0, gravity: false)
    /// When the device last lay still at 1 g for `PickUpRestMs` (−∞: never, or a jolt
    /// since): for `PickUpMs` after it, a movement is a pick-up.
    private(set) var stillUntilMs = -Double.infinity
    private(set) var turning: TurnSweep
    private(set) var sweep: FlatwardSweep

    init(tunables t: EngineTunables) {
        restMs = t.pickUpRestMs
        windowMs = t.pickUpMs
        joltG = t.pickUpJoltG
        calmAngleDeg = t.calmAngleDeg
        gateToleranceMs = t.pickUpGateToleranceMs
        turning = TurnSweep(tunables: t)
        sweep = FlatwardSweep(tunables: t, bothWays: true)
    }

    /// Takes the estimate after a reading at `t`, `creditMs` after the one before (the
    /// first reading: no credit, nothing to sweep yet).
    mutating func observe(_ e: GravityEstimate, sinElevation: Double, at t: Double, creditMs: Double) {
        guard windowMs > 0 else { return }
        // A rest ends at the reading that leaves it: an event-driven sensor's last reading
        // stood until then (had anything changed, it would have sent one); a stream's rest
        // is known only up to its last reading.
        if e.restSinceMs != run.sinceMs {
            let end = e.silenceHolds ? e.restSinceMs : run.lastMs
            let seen = run.readings >= 2 || e.silenceHolds && run.readings >= 1
            if run.gravity && seen && end - run.sinceMs >= restMs { stillUntilMs = max(stillUntilMs, end) }
        }
        run = (e.restSinceMs, e.lastReadingMs, e.restReadings, e.restIsGravity)
        if e.meanLengthError > joltG { stillUntilMs = -.infinity }
        let resting = e.restIsGravity && e.restReadings >= 2 && e.lastReadingMs - e.restSinceMs >= restMs
        if resting { stillUntilMs = e.lastReadingMs }
        // The turning is followed only from a rest on, while it can matter; at rest the
        // estimate is its own average, so the averages are just held there (the first
        // reading that moves is measured against the rest).
        if resting {
            turning.hold(e.meanUp)
            sweep.hold(sinElevation: sinElevation)
        } else if active(e) {
            turning.observe(e.meanUp, at: t, dtMs: creditMs)
            sweep.observe(sinElevation: sinElevation, at: t, dtMs: creditMs)
        } else {
            turning.restart()
            sweep.restart()
        }
    }

    /// Whether the movement up to the last reading is a pick-up.
    func active(_ e: GravityEstimate) -> Bool { windowMs > 0 && e.lastReadingMs <= stillUntilMs + windowMs }

    /// What calm allows a proposal `o` while the device is being picked up: a disturbance
    /// of `limit` times calm, from `fromMs` (the plain mean no longer turning, the readings'
    /// length calm; a reading less than half an interval before that counts, up to
    /// `PickUpGateToleranceMs`), until `endsMs`. Nil when there is no pick-up, a gyroscope is
    /// integrated (calm then reads the turning from it), or the estimate is too near the
    /// sector's edge to allow more than calm. A gyroscope read too rarely to integrate (a
    /// 10 Hz poll) leaves calm to the accelerometer's whole angle, and the allowance with it.
    func allowance(for o: Orientation, _ e: GravityEstimate, geometry: Geometry)
        -> (limit: Double, fromMs: Double, endsMs: Double)? {
        guard active(e), !e.attitudeIsIntegrated else { return nil }
        // A direction error δ moves φ by up to δ / cos θ: the depth, in φ, allows
        // depth · cos θ of it (θ the elevation; the pose's plane share is cos θ).
        let pose = geometry.pose(e.meanUp)
        let limit = geometry.depthDeg(pose, in: o) * pose.plane / calmAngleDeg
        guard limit > 1 else { return nil }
        // Gates that open within half an interval after a reading are open at it
        // (`PickUpGateToleranceMs`): the reading stands for the time around it.
        let gates = max(turning.calmFromMs, sweep.calmFromMs, e.lengthCalmFromMs)
        return (limit, gates - min(e.intervalMs / 2, gateToleranceMs), stillUntilMs + windowMs)
    }
}
