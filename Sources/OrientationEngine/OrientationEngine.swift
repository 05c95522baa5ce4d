/// Turns timestamped accelerometer samples into an orientation and a tilt.
///
/// The engine is a plain value: no clocks (time comes with the samples), no I/O, no
/// allocation per sample. The daemon and `orientationctl replay` feed it the same way.
///
/// ## How it decides
///
/// 1. **The sensor's own 1 g.** ``GravityMagnitude`` learns how long gravity reads on this
///    sensor while it is still, so every magnitude below is a fraction of the sensor's
///    1 g and a mis-scaled sensor (×0.001 … ×1000) decides exactly as a right one.
/// 2. **Gravity estimate.** A first-order low-pass filter with time constant
///    `GravityFilterMs` follows the acceleration vector. The gain is computed from the real
///    interval between samples (1 − e^(−Δt/τ)), so it is the same filter at any rate, with
///    jitter and across gaps. Each sample's gain is scaled down by how far its magnitude
///    differs from 1 g (weight 1 / (1 + (Δ/`AccelerationToleranceG`)²)).
/// 3. **Moving or still.** Three things hold every change off, each until its own time
///    after it was last seen: a *shock* (the sample farther than `ShockThresholdG` from the
///    estimate: shakes, taps, knocks, a fast turn's lever-arm forces; `ShockHoldMs`);
///    *linear acceleration* (|a| more than `AccelerationGateG` from 1 g: strides of a run,
///    a swing, a pocket; `AccelerationHoldMs`); and *motion* (the estimate's direction has
///    moved more than `SteadyAngleDeg` from where it was: the device is still turning;
///    a change waits until it has been steady for `SteadyMs`). A person's excursions
///    (a glance, a hand on its way to a pocket) pass through an orientation while the hand
///    still moves; a rotation that is meant ends in a steady hold. Committing on
///    steadiness rather than on elapsed time alone is what lets the engine be fast on
///    real rotations and calm on excursions.
/// 4. **At rest.** Once every raw sample for `SteadyMs` has stayed within `RestAngleDeg`
///    of the first of them, each within `AccelerationToleranceG` of 1 g (trusted at least
///    half by the gravity filter), the device is at rest: the mean of those samples
///    becomes the gravity estimate and a pending orientation change completes at once. (A
///    swinging arm's pull is steady in direction but not in magnitude: it is no rest.)
///    The filters, holds and settle times exist to wait for a rest while the device
///    moves; once a rest has been seen there is nothing left to wait for. A device set
///    down or held still after a turn (and a bench's step) is reported `SteadyMs` after it
///    stopped, at every sample rate; a hand that is still moving never rests.
/// 5. **Running.** Under sustained linear acceleration (a run with the phone in the hand)
///    the holds above may never let go. A run's forces average out over a stride or two
///    while gravity does not, so a slow, unweighted *stride estimate* (`StrideFilterMs`)
///    decides then: once it has stayed within `SteadyAngleDeg` for `StrideFilterMs`
///    (its proposal with it) and is near 1 g, at a real reading. A turn made while
///    running is reported about a second after it, rather than never.
/// 6. **Angles.** From the estimate: the elevation θ of the screen normal above the
///    horizon, and the roll angle φ of the screen's up direction (README section 1).
/// 7. **Orientation.** Only while `MinElevationDeg` < θ < `MaxElevationDeg`: above, the
///    device lies (nearly) flat; below, the screen faces the floor, as when a phone is held
///    overhead lying in bed (Android's "overhead" rule). There it keeps its orientation. The
///    current orientation is left only when φ is more than 45° + `OrientationHysteresisDeg`
///    from its centre; the proposal is the orientation whose centre is nearest. It is
///    reported once it has persisted for `OrientationSettleMs`, the device has been steady
///    and calm as above, and it has been out of the flat and overhead zones for
///    `FlatExitMs`, at a reading near 1 g (one under linear acceleration, a bounce's
///    0.6 g, says little about where gravity is).
/// 8. **Tilt.** From θ of a slower estimate (the gravity estimate low-passed with
///    `TiltFilterMs`, over which a stride's forces average out), with the thresholds 20°
///    and 70°, each moved by `TiltHysteresisDeg` away from the current state, its own
///    settle time `TiltSettleMs`, and the shock hold (not the linear-acceleration hold:
///    the averaging is what copes with a run's strides, and a runner may tilt the phone).
/// 9. **First sample after reset** is decided at once, without hysteresis or settling:
///    nearest orientation (unless flat) and the plain tilt label.
///
/// ## Decisions that complete without new samples
///
/// Event-driven sensors (evdev, IIO buffers on a data-ready or motion trigger) send nothing
/// while the device lies still: the kernel drops repeated values. A pending change would
/// then wait for the next movement. ``nextDeadlineMs`` says when the pending decision
/// would complete if the last sample stayed as it is, and ``advance(toMs:)`` re-evaluates
/// with that held sample at a later time; the daemon arms a timer for the one and calls
/// the other, and `orientationctl replay` does the same between the samples of a trace.
///
/// A held sample is the last reading again, not a new one. Between the readings of a
/// sensor that keeps sending (an IIO sensor polled at 10 Hz) it tells nothing new, so a
/// change completes from it only if the last reading confirmed the one before it (the
/// same proposal, no shock, no linear acceleration, no movement); or if that reading is
/// a *step from still* (itself calm, with the device still at one of the two readings
/// before it: a still device turned between two polls, or seen once during the turn and
/// then in its new pose); or once the sensor has been silent for longer than it takes
/// to send a reading (1.5 intervals, at most `MaxIntervalMs`). Otherwise, at 10 Hz, one
/// stride's sample that happened to read 1 g in the wrong direction completed a change
/// 50 ms later and the next reading undid it, and so did a knock on a still device whose
/// one reading pointed elsewhere.
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
    private let minElevationDeg: Double
    private let invTolerance: Double
    private let gravityFilterMs: Double
    private let maxIntervalMs: Double
    private let orientationSettleMs: Double
    private let flatExitMs: Double
    private let shockThreshold: Double
    private let shockHoldMs: Double
    private let accelerationGate: Double
    private let accelerationHoldMs: Double
    private let cosSteady: Double
    private let motionFilterMs: Double
    private let scatterLimit: Double
    private let steadyMs: Double
    private let cosRest: Double
    private let restEnabled: Bool
    /// A rest this long completes an orientation change: `SteadyMs`, or the settle time if
    /// that is longer (the rest's samples have all proposed the same orientation).
    private let restLongEnoughMs: Double
    private let tiltSettleMs: Double
    private let tiltHysteresisDeg: Double
    private let tiltFilterMs: Double
    private let strideFilterMs: Double

    // Filter state.
    private var started = false
    private var lastTimeMs: Int64 = 0
    private var held = Sample(timeMs: 0, x: 0, y: 0, z: 0)
    /// When the last real reading (not a held one) came, and how long after the one
    /// before it: about how long this sensor takes to send its next reading.
    private var lastReadingMs: Int64 = 0
    private var readingIntervalMs = 0.0
    private var gx = 0.0, gy = 0.0, gz = 0.0
    private var magnitude = GravityMagnitude()
    private var cachedDt = -1.0
    private var cachedAlpha = 1.0
    private var cachedMeanAlpha = 1.0
    private var cachedLagScale = 1.0
    private var tx = 0.0, ty = 0.0, tz = 0.0
    private var cachedTiltDt = -1.0
    private var cachedTiltAlpha = 1.0

    // Motion state: a smoother, unweighted estimate, and how far samples scatter around it.
    private var sx = 0.0, sy = 0.0, sz = 0.0
    private var scatter = 0.0
    private var cachedMotionAlpha = 1.0
    private var anchorX = 0.0, anchorY = 0.0, anchorZ = 0.0
    private var steadyForMs = 0.0
    private var sinceShockMs = Double.infinity
    private var sinceAccelerationMs = Double.infinity
    private var heldIsAccelerating = false

    // Rest: the raw samples since `rest` began, all within AccelerationToleranceG of 1 g
    // and within RestAngleDeg of its first sample (unit vector `restX…`); their sum, and
    // for how long.
    private var restX = 0.0, restY = 0.0, restZ = 0.0
    private var restSumX = 0.0, restSumY = 0.0, restSumZ = 0.0
    private var restCount = 0.0
    private var restForMs = -Double.infinity
    private var restReached = false

    // Stride estimate: a slow, unweighted low-pass of the samples, its direction's anchor
    // and how long it has stayed within SteadyAngleDeg of it, when it was last looked at,
    // and its own proposal and for how long it has made it.
    private var wx = 0.0, wy = 0.0, wz = 0.0
    private var cachedStrideDt = -1.0
    private var cachedStrideAlpha = 1.0
    private var strideAnchorX = 0.0, strideAnchorY = 0.0, strideAnchorZ = 0.0
    private var strideSteadyForMs = 0.0
    private var sinceStrideCheckMs = Double.infinity
    private var strideCandidate: Orientation = .undefined
    private var strideCandidateMs = 0.0
    /// How long the reported orientation has stood (the stride estimate lags a decision
    /// of the faster ones and must not overturn it).
    private var orientationStoodMs = 0.0

    // Decision state.
    private var orientationCandidate: Orientation = .undefined
    private var orientationElapsedMs = 0.0
    /// Whether the last real reading confirmed the pending change: proposed the same
    /// candidate as the one before it, and was no shock, no linear acceleration and did
    /// not move the direction (a held reading only completes a confirmed change).
    private var orientationConfirmed = false
    private var sinceFlatMs = Double.infinity
    private var tiltCandidate: Tilt = .undefined
    private var tiltElapsedMs = 0.0
    private var tiltConfirmed = false
    /// Which of the last two real readings were still (bit 0 the last, bit 1 the one
    /// before: no shock, no linear acceleration, near 1 g, the direction not moving), and
    /// whether the last one is a *step from still*: itself no shock, no linear acceleration
    /// and near 1 g, with the device still at one of the two readings before it. A change
    /// that such a reading shows is a still device turned between readings (a slow sensor
    /// sees a turn as a step, or as one reading taken during the turn and then the new
    /// pose); after readings that are all disturbed it may be a stride's sample.
    private var stillReadings: UInt8 = 0
    private var stepFromStill = false

    // For `explanation`.
    private var last = Trace()

    public init(tunables: EngineTunables = .default) {
        self.tunables = tunables
        leaveAngleDeg = 45 + tunables.orientationHysteresisDeg
        maxElevationDeg = tunables.maxElevationDeg
        minElevationDeg = tunables.minElevationDeg
        invTolerance = 1 / tunables.accelerationToleranceG
        gravityFilterMs = tunables.gravityFilterMs
        maxIntervalMs = tunables.maxIntervalMs
        orientationSettleMs = tunables.orientationSettleMs
        flatExitMs = tunables.flatExitMs
        shockThreshold = tunables.shockThresholdG
        shockHoldMs = tunables.shockHoldMs
        accelerationGate = tunables.accelerationGateG
        accelerationHoldMs = tunables.accelerationHoldMs
        cosSteady = EngineMath.cosDegrees(tunables.steadyAngleDeg)
        motionFilterMs = tunables.motionFilterMs
        // Mean of 1 − cos(angle) that a scatter of ScatterDeg (RMS) gives: ≈ angle²/2.
        let r = tunables.scatterDeg * EngineMath.radiansPerDegree
        scatterLimit = r * r / 2
        steadyMs = tunables.steadyMs
        restEnabled = tunables.restAngleDeg > 0
        cosRest = EngineMath.cosDegrees(tunables.restAngleDeg)
        restLongEnoughMs = max(tunables.steadyMs, tunables.orientationSettleMs)
        tiltSettleMs = tunables.tiltSettleMs
        tiltHysteresisDeg = tunables.tiltHysteresisDeg
        tiltFilterMs = tunables.tiltFilterMs
        strideFilterMs = tunables.strideFilterMs
    }

    /// Forget all history (called when the first client starts). Orientation and tilt go
    /// back to `.undefined`, and the next sample decides both at once.
    public mutating func reset() {
        self = OrientationEngine(tunables: tunables)
    }

    /// The magnitude of gravity learned from this sensor while it was still, in the
    /// samples' unit (m/s² for a correctly scaled sensor); nil until confirmed by about a
    /// second of stillness.
    public var learnedGravity: Double? { magnitude.isConfirmed ? magnitude.value : nil }

    /// True when the learned gravity is far (more than a third) from `StandardGravity`:
    /// the sensor's scale is most likely wrong. The engine decides correctly either way;
    /// the daemon logs it once, as a hint for a driver or hwdb fix.
    public var scaleLooksWrong: Bool {
        guard let g = learnedGravity else { return false }
        let ratio = g / tunables.standardGravity
        return ratio > 4.0 / 3.0 || ratio < 3.0 / 4.0
    }

    /// The one log line for ``scaleLooksWrong``, e.g. "sensor scale looks wrong: gravity
    /// reads 251 m/s^2 at rest, expected 9.81"; nil while the scale looks right.
    /// (`mutating get` for the reason given at ``nextDeadlineMs``.)
    public var scaleWarning: String? {
        mutating get { scaleWarningText() }
    }

    private func scaleWarningText() -> String? {
        guard scaleLooksWrong, let g = learnedGravity else { return nil }
        let digits = g >= 100 ? 0 : g >= 1 ? 2 : 4
        return "sensor scale looks wrong: gravity reads \(fmt(g, digits)) m/s^2 at rest, expected "
            + fmt(tunables.standardGravity, 2) + " (orientation is still decided from its direction)"
    }

    /// When the pending change of orientation or tilt would complete if the last sample
    /// stayed as it is (a silent, event-driven sensor): a time on the samples' clock, or
    /// nil when nothing is pending or the held sample could never complete it (it is itself
    /// linear acceleration). Call ``advance(toMs:)`` then.
    ///
    /// `mutating get` changes nothing: it lets a caller that keeps the engine in a class
    /// (the service, once per sample) read it in place, where a plain getter from
    /// another module is handed a copy of the whole engine, about 1 KB, at every call.
    public var nextDeadlineMs: Int64? {
        mutating get { pendingDeadlineMs() }
    }

    private func pendingDeadlineMs() -> Int64? {
        guard started, !heldIsAccelerating else { return nil }
        var need = Double.infinity
        let calmNeed = max(0, shockHoldMs - sinceShockMs, accelerationHoldMs - sinceAccelerationMs)
        // A change the last reading did not confirm completes once the sensor is silent.
        let silenceNeed = Double(lastReadingMs) + silenceMs - Double(lastTimeMs)
        if orientationCandidate != .undefined {
            need = max(calmNeed, orientationSettleMs - orientationElapsedMs,
                       steadyMs - steadyForMs, flatExitMs - sinceFlatMs,
                       orientationConfirmed || stepFromStill ? 0 : silenceNeed)
        }
        if tiltCandidate != .undefined {
            need = min(need, max(calmNeed, tiltSettleMs - tiltElapsedMs, tiltConfirmed || stepFromStill ? 0 : silenceNeed))
        }
        // A rest under way, not yet long enough, whose mean would change the orientation.
        // (Once it is long enough the rest path has had its say: no deadline from it.)
        if restEnabled && restCount >= 2 && restForMs >= 0 && restForMs < restLongEnoughMs {
            let a = angles(restSumX, restSumY, restSumZ)
            if a.zone == .free && (orientation == .undefined
                || abs(EngineMath.wrapDegrees(a.phi - Self.centre(orientation))) > leaveAngleDeg) {
                need = min(need, max(restLongEnoughMs - restForMs, flatExitMs - sinceFlatMs))
            }
        }
        // The estimates still moving toward the held reading: look again after one
        // motion time constant (a new proposal may appear as they arrive).
        if !need.isFinite && !converged { need = max(1, motionFilterMs) }
        guard need.isFinite else { return nil }
        // Whole milliseconds, at least one later: the samples' clock is in ms. At most
        // MaxIntervalMs later: a longer interval is credited as that much (a gap), so a
        // longer need (FlatExitMs) would be found short when it is due.
        let ms = max(1, min(maxIntervalMs, need).rounded(.up))
        guard ms < 1e12 else { return nil }
        let (deadline, overflow) = lastTimeMs.addingReportingOverflow(Int64(ms))
        return overflow ? nil : deadline
    }

    /// How long after a reading the sensor counts as silent: longer than it took to send
    /// that reading by half as much again (timestamps jitter), at most `MaxIntervalMs`.
    private var silenceMs: Double { min(maxIntervalMs, 1.5 * readingIntervalMs) }

    /// Whether the estimates (gravity, motion, tilt) point within about 2° of the held reading.
    private var converged: Bool {
        let h = held
        let hn = (h.x * h.x + h.y * h.y + h.z * h.z).squareRoot()
        func close(_ x: Double, _ y: Double, _ z: Double) -> Bool {
            let n = (x * x + y * y + z * z).squareRoot()
            guard n > 0, hn > 0 else { return true }
            return (h.x * x + h.y * y + h.z * z) / (n * hn) >= 0.9994  // cos 2°
        }
        return close(gx, gy, gz) && close(sx, sy, sz) && close(tx, ty, tz)
    }

    /// Re-evaluates with the last sample held until `timeMs` (see ``nextDeadlineMs``).
    /// Returns true when the orientation or the tilt changed. Does nothing before the first
    /// sample or for a time that is not later than the last sample's.
    @discardableResult
    public mutating func advance(toMs timeMs: Int64) -> Bool {
        guard started, timeMs > lastTimeMs else { return false }
        var s = held
        s.timeMs = timeMs
        return feed(s, held: true)
    }

    /// Feed one sample. Returns true when the orientation or the tilt changed.
    ///
    /// Samples with a non-finite component, too large to square, exactly zero, or more than
    /// a thousand times the learned 1 g are ignored (no state change, not even of the
    /// clock). A timestamp that does not increase counts as no time passing.
    @discardableResult
    public mutating func feed(_ sample: Sample) -> Bool {
        feed(sample, held: false)
    }

    /// `held`: the sample is the last one again (``advance(toMs:)``), not a new reading.
    private mutating func feed(_ sample: Sample, held isHeld: Bool) -> Bool {
        let x = sample.x, y = sample.y, z = sample.z
        let m2 = x * x + y * y + z * z
        guard m2.isFinite else { return false }
        let m = m2.squareRoot()
        let before = (orientation, tilt)

        // A zero reading carries no direction; one more than a thousand times the sensor's
        // own 1 g (once confirmed by stillness) is no reading at all: ignore both, or they
        // would drag every estimate with them. Before that, the estimate may itself come
        // from a first sample taken in free fall, and must be allowed to correct itself.
        guard m > 0, !started || !magnitude.isConfirmed || m < 1000 * magnitude.value else { return false }

        if !started {
            // The first sample decides at once.
            started = true
            lastTimeMs = sample.timeMs
            held = sample
            lastReadingMs = sample.timeMs
            readingIntervalMs = maxIntervalMs
            gx = x; gy = y; gz = z
            tx = x; ty = y; tz = z
            sx = x; sy = y; sz = z
            wx = x; wy = y; wz = z
            strideAnchorX = x / m; strideAnchorY = y / m; strideAnchorZ = z / m
            strideSteadyForMs = 0
            magnitude.start(m)
            beginRest(x, y, z, m, creditMs: 0)
            setAnchor()
            steadyForMs = 0
            let a = angles()
            orientation = a.zone == .free ? Self.nearest(a.phi) : .undefined
            sinceFlatMs = a.zone == .free ? .infinity : 0
            tilt = tiltLevel(a.elevation, current: nil)
            last = Trace(timeMs: sample.timeMs, x: x, y: y, z: z, magnitudeG: 1, weight: 1,
                         gx: gx, gy: gy, gz: gz, phi: a.phi, elevation: a.elevation, zone: a.zone,
                         proposedOrientation: orientation, firstSample: true)
            return orientation != .undefined || tilt != .undefined
        }

        // Elapsed time; a non-increasing timestamp counts as no time.
        let dtRaw = Double(sample.timeMs) - Double(lastTimeMs)
        let dt = dtRaw > 0 ? dtRaw : 0
        lastTimeMs = sample.timeMs
        held = sample
        if !isHeld {
            readingIntervalMs = max(0, Double(sample.timeMs) - Double(lastReadingMs))
            lastReadingMs = sample.timeMs
        }
        // A held reading stands for a sensor that has stopped sending only once it has
        // been silent for longer than it takes to send a reading.
        let silent = isHeld && Double(sample.timeMs) - Double(lastReadingMs) >= silenceMs

        if dt != cachedDt {
            cachedDt = dt
            cachedAlpha = gravityFilterMs > 0 ? 1 - EngineMath.expNeg(dt / gravityFilterMs) : 1
            cachedMeanAlpha = 1 - EngineMath.expNeg(dt / GravityMagnitude.meanMs)
            cachedMotionAlpha = motionFilterMs > 0 ? 1 - EngineMath.expNeg(dt / motionFilterMs) : 1
            // A steady turn puts the sample ω·Δt/α away from the estimate before the update;
            // a continuous filter would lag by ω·τ. Rescale so the shock test is the same
            // at every rate (1 at high rates, 0.37 at 10 Hz with τ = 40 ms).
            cachedLagScale = dt > 0 && gravityFilterMs > 0 ? min(1, gravityFilterMs * cachedAlpha / dt) : 1
        }
        let credit = dt < maxIntervalMs ? dt : maxIntervalMs

        // The sensor's 1 g, then this sample in units of it.
        magnitude.observe(m, dtMs: credit, alpha: cachedMeanAlpha)
        let invG = 1 / magnitude.value
        let magnitudeError = m * invG - 1

        // Rest: this sample within AccelerationToleranceG of 1 g and within RestAngleDeg
        // of the rest's first sample extends it; one as near 1 g elsewhere begins a new
        // one (somewhere in the last interval: credit half); one farther from 1 g ends it.
        // (The acceleration gate, 0.3, is for the motion estimate, an average: a
        // pendulum's pull, 0.7 to 1.3 g in a steady direction, passes it sample by
        // sample.) A held sample is the last reading again: time passes, but it is no
        // second witness, and a rest needs two.
        if restEnabled {
            if isHeld {
                if restForMs >= 0 { restForMs += credit }
            } else if abs(magnitudeError) * invTolerance > 1 {
                restForMs = -Double.infinity
            } else {
                let d = x * restX + y * restY + z * restZ
                if restForMs >= 0 && d > 0 && d * d >= cosRest * cosRest * m2 {
                    restForMs += credit
                    restSumX += x; restSumY += y; restSumZ += z
                    restCount += 1
                } else {
                    beginRest(x, y, z, m, creditMs: credit * 0.5)
                }
            }
        }
        let atRest = restForMs >= steadyMs && restCount >= 2

        // Gravity filter: gain from the real interval, scaled by how much the sample
        // looks like gravity.
        let dev = magnitudeError * invTolerance
        let weight = 1 / (1 + dev * dev)
        let alpha = cachedAlpha * weight
        let lx = x - gx, ly = y - gy, lz = z - gz
        let linear = (lx * lx + ly * ly + lz * lz).squareRoot() * invG * cachedLagScale
        gx += alpha * lx
        gy += alpha * ly
        gz += alpha * lz
        // The tilt estimate: the gravity estimate averaged over about a stride, so that
        // the periodic forces of walking and running (and a leg's swing) cancel.
        if dt != cachedTiltDt {
            cachedTiltDt = dt
            cachedTiltAlpha = tiltFilterMs > 0 ? 1 - EngineMath.expNeg(dt / tiltFilterMs) : 1
        }
        tx += cachedTiltAlpha * (gx - tx)
        ty += cachedTiltAlpha * (gy - ty)
        tz += cachedTiltAlpha * (gz - tz)
        // The stride estimate, and whether its direction stays where it was.
        if strideFilterMs > 0 {
            if dt != cachedStrideDt {
                cachedStrideDt = dt
                cachedStrideAlpha = 1 - EngineMath.expNeg(dt / strideFilterMs)
            }
            wx += cachedStrideAlpha * (x - wx)
            wy += cachedStrideAlpha * (y - wy)
            wz += cachedStrideAlpha * (z - wz)
            let w2 = wx * wx + wy * wy + wz * wz
            let d = wx * strideAnchorX + wy * strideAnchorY + wz * strideAnchorZ
            if w2 > 0 && d > 0 && d * d >= cosSteady * cosSteady * w2 {
                strideSteadyForMs += credit
            } else {
                let n = w2.squareRoot()
                if n > 0 { strideAnchorX = wx / n; strideAnchorY = wy / n; strideAnchorZ = wz / n }
                strideSteadyForMs = credit * 0.5
            }
        }

        // What put the sample this far off happened somewhere within the last interval:
        // credit half of it, as for a boundary crossing below.
        let shocked = linear > shockThreshold
        if shocked {
            sinceShockMs = credit * 0.5
        } else {
            sinceShockMs += credit
        }
        // Linear acceleration, judged on the smoother estimate so that sensor noise and
        // tremor do not count: its length far from 1 g (a run's strides, a swing), or the
        // samples scattering in direction around it (sideways forces that turn the apparent
        // gravity; a bounce along gravity does not).
        let sm = cachedMotionAlpha
        sx += sm * (x - sx); sy += sm * (y - sy); sz += sm * (z - sz)
        let s2 = sx * sx + sy * sy + sz * sz
        let sLength = s2.squareRoot()
        let cosScatter = m > 0 && sLength > 0 ? (x * sx + y * sy + z * sz) / (m * sLength) : -1
        scatter += sm * ((1 - cosScatter) - scatter)
        // Held still, a reading this far from 1 g would keep the device "accelerating" for
        // ever: such a sample cannot complete a decision by itself (see nextDeadlineMs).
        heldIsAccelerating = abs(magnitudeError) > accelerationGate
        let accelerating = abs(sLength * invG - 1) > accelerationGate || scatter > scatterLimit
        if accelerating {
            sinceAccelerationMs = credit * 0.5
        } else {
            sinceAccelerationMs += credit
        }
        // Steadiness: has the smoother estimate's direction stayed near where it was?
        let dot = sx * anchorX + sy * anchorY + sz * anchorZ
        let moved = !(s2 > 0 && dot > 0 && dot * dot >= cosSteady * cosSteady * s2)
        if !isHeld {
            // Calm: no shock, no linear acceleration in the estimate, and the reading itself
            // near 1 g; still: calm and the direction not moving.
            let calmReading = !(shocked || accelerating) && abs(magnitudeError) <= accelerationGate
            stepFromStill = stillReadings != 0 && calmReading
            stillReadings = (stillReadings << 1 | (calmReading && !moved ? 1 : 0)) & 0b11
        }
        if !moved {
            steadyForMs += credit
        } else {
            setAnchor()
            steadyForMs = credit * 0.5
        }
        if atRest && !restReached {
            // As the rest is first seen, the mean of its samples is the best estimate of
            // gravity: the filter, which only stands in for it while the device moves,
            // goes on from there (and follows a slow drift within the rest as before).
            restReached = true
            let k = 1 / restCount
            gx = restSumX * k; gy = restSumY * k; gz = restSumZ * k
            tx = gx; ty = gy; tz = gz
        }
        let g2 = gx * gx + gy * gy + gz * gz
        let calm = sinceShockMs >= shockHoldMs && sinceAccelerationMs >= accelerationHoldMs
            && g2 * invG * invG >= 0.25
        let a = angles()

        // Orientation.
        var proposed = orientation
        var offCentre = 0.0
        var settledMs = -1.0
        if a.zone != .free {
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
                    if !isHeld { orientationConfirmed = !(shocked || accelerating || moved) }
                } else {
                    // The boundary was crossed somewhere in the last interval: credit half.
                    orientationCandidate = proposed
                    orientationElapsedMs = credit * 0.5
                    orientationConfirmed = false
                }
                // Held, a reading completes a change only if it confirmed the one before
                // it, was a step from still, or once the sensor is silent: between the
                // readings of a sensor that keeps sending, one reading that jumped (a
                // stride's sample at about 1 g) is no evidence for the time until the next.
                // And never on a reading far from 1 g (`heldIsAccelerating`: this one).
                let settled = orientationElapsedMs >= orientationSettleMs && calm && steadyForMs >= steadyMs
                    && (!isHeld || orientationConfirmed || stepFromStill || silent) && !heldIsAccelerating
                // At rest the proposal has held for as long as the rest (its samples are
                // within RestAngleDeg of each other): the settle time is counted on that.
                let rested = atRest && restForMs >= restLongEnoughMs
                if (settled || rested) && sinceFlatMs >= flatExitMs {
                    settledMs = orientationElapsedMs
                    orientation = proposed
                    orientationCandidate = .undefined
                    orientationElapsedMs = 0
                }
            }
        }
        // Under sustained linear acceleration the decision above waits for a calm moment
        // that a run may never give; a run's forces average out over a stride or two
        // while gravity does not, so the stride estimate decides instead: once it has been
        // steady for StrideFilterMs, near 1 g and proposing the same orientation for as
        // long, and the current orientation has stood a stride window too (the
        // stride estimate lags the faster decisions and must not overturn one). Only at a
        // real reading (a held one is no stride), looked at every StrideFilterMs / 10: a
        // decision on this time scale needs no more, and the angles cost.
        var strideSettledMs = -1.0
        if strideFilterMs > 0 && sinceAccelerationMs < accelerationHoldMs + strideFilterMs && !isHeld {
            sinceStrideCheckMs += credit
            if sinceStrideCheckMs >= strideFilterMs * 0.1 {
                let w = angles(wx, wy, wz)
                let length = (wx * wx + wy * wy + wz * wz).squareRoot() * invG
                var strideProposed = orientation
                if w.zone == .free && abs(length - 1) <= accelerationGate && (orientation == .undefined
                    || abs(EngineMath.wrapDegrees(w.phi - Self.centre(orientation))) > leaveAngleDeg) {
                    strideProposed = Self.nearest(w.phi)
                }
                if strideProposed == orientation {
                    strideCandidate = .undefined
                    strideCandidateMs = 0
                } else if strideProposed == strideCandidate {
                    strideCandidateMs += sinceStrideCheckMs  // finite: a candidate was set at the last look
                } else {
                    strideCandidate = strideProposed
                    strideCandidateMs = 0
                }
                sinceStrideCheckMs = 0
                if strideCandidate != .undefined && strideCandidateMs >= strideFilterMs
                    && strideSteadyForMs >= strideFilterMs
                    && orientation == before.0 && orientationStoodMs + credit >= strideFilterMs {
                    strideSettledMs = strideCandidateMs
                    orientation = strideCandidate
                    orientationCandidate = .undefined
                    orientationElapsedMs = 0
                    strideCandidate = .undefined
                    strideCandidateMs = 0
                }
            }
        } else {
            sinceStrideCheckMs = .infinity
            strideCandidate = .undefined
            strideCandidateMs = 0
        }

        // Tilt.
        let proposedTilt = tiltLevel(angles(tx, ty, tz).elevation, current: tilt)
        var tiltSettledMs = -1.0
        if proposedTilt == tilt {
            tiltCandidate = .undefined
            tiltElapsedMs = 0
        } else {
            if proposedTilt == tiltCandidate {
                tiltElapsedMs += credit
                if !isHeld { tiltConfirmed = !shocked }
            } else {
                tiltCandidate = proposedTilt
                tiltElapsedMs = credit * 0.5
                tiltConfirmed = false
            }
            if tiltElapsedMs >= tiltSettleMs && sinceShockMs >= shockHoldMs
                && (!isHeld || tiltConfirmed || stepFromStill || silent) {
                tiltSettledMs = tiltElapsedMs
                tilt = proposedTilt
                tiltCandidate = .undefined
                tiltElapsedMs = 0
            }
        }

        last = Trace(timeMs: sample.timeMs, x: x, y: y, z: z, magnitudeG: m * invG, weight: weight,
                     gx: gx, gy: gy, gz: gz, phi: a.phi, elevation: a.elevation, zone: a.zone,
                     offCentre: offCentre, sinceFlatMs: sinceFlatMs, sinceShockMs: sinceShockMs,
                     sinceAccelerationMs: sinceAccelerationMs, steadyForMs: steadyForMs, restForMs: restForMs,
                     settledMs: settledMs, strideSettledMs: strideSettledMs,
                     tiltSettledMs: tiltSettledMs, proposedOrientation: proposed, orientationCandidate: orientationCandidate,
                     orientationElapsedMs: orientationElapsedMs, proposedTilt: proposedTilt,
                     tiltCandidate: tiltCandidate, tiltElapsedMs: tiltElapsedMs, firstSample: false)
        orientationStoodMs = orientation == before.0 ? orientationStoodMs + credit : 0
        return before != (orientation, tilt)
    }

    /// Begins a rest at this sample (magnitude `m`), already `creditMs` long.
    private mutating func beginRest(_ x: Double, _ y: Double, _ z: Double, _ m: Double, creditMs: Double) {
        restX = x / m; restY = y / m; restZ = z / m
        restSumX = x; restSumY = y; restSumZ = z
        restCount = 1
        restForMs = creditMs
        restReached = false
    }

    /// Makes the estimate's current direction the one steadiness is measured from.
    private mutating func setAnchor() {
        let n = (sx * sx + sy * sy + sz * sz).squareRoot()
        guard n > 0 else { anchorX = 0; anchorY = 0; anchorZ = 0; return }
        anchorX = sx / n; anchorY = sy / n; anchorZ = sz / n
    }

    // MARK: - Geometry

    /// Where the screen normal points, for the orientation decision.
    enum Zone: Sendable {
        /// Between `MinElevationDeg` and `MaxElevationDeg`: orientation is decided.
        case free
        /// Lying (nearly) flat, either way up.
        case flat
        /// Screen toward the floor beyond `MinElevationDeg`: held overhead.
        case overhead
    }

    /// φ and θ of the gravity estimate, in degrees, and the zone they put the device in.
    private func angles() -> (phi: Double, elevation: Double, zone: Zone) {
        angles(gx, gy, gz)
    }

    /// φ and θ of a direction (any length), and its zone.
    private func angles(_ gx: Double, _ gy: Double, _ gz: Double) -> (phi: Double, elevation: Double, zone: Zone) {
        let horizontal = (gx * gx + gy * gy).squareRoot()
        let elevation = EngineMath.atan2Degrees(gz, horizontal)
        let phi = EngineMath.atan2Degrees(-gx, -gy)
        let zone: Zone = !(abs(elevation) < maxElevationDeg) || horizontal == 0 ? .flat
            : elevation <= minElevationDeg ? .overhead : .free
        return (phi, elevation, zone)
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
        var zone = Zone.free
        var offCentre = 0.0
        var sinceFlatMs = Double.infinity
        var sinceShockMs = Double.infinity
        var sinceAccelerationMs = Double.infinity
        var steadyForMs = 0.0
        var restForMs = -Double.infinity
        var settledMs = -1.0
        var strideSettledMs = -1.0
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
            s += l.zone == .free ? " (nearest orientation)" : " (flat or overhead: orientation undefined)"
            return s + " -> \(orientation.rawValue),\(tilt.rawValue)"
        }
        switch l.zone {
        case .flat:
            s += " flat (|elevation| >= \(fmt(maxElevationDeg, 1))): orientation kept"
        case .overhead:
            s += " overhead (elevation <= \(fmt(minElevationDeg, 1))): orientation kept"
        case .free:
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
        if l.sinceAccelerationMs < accelerationHoldMs {
            s += " accelerating \(fmt(l.sinceAccelerationMs, 0))/\(fmt(accelerationHoldMs, 0))ms ago: holding"
        }
        if l.restForMs >= steadyMs {
            s += " at rest for \(fmt(l.restForMs, 0))ms"
        } else if l.steadyForMs < steadyMs {
            s += " moving: steady \(fmt(l.steadyForMs, 0))/\(fmt(steadyMs, 0))ms"
        }
        if l.settledMs >= 0 {
            s += " orientation settled after \(fmt(l.settledMs, 0))/\(fmt(orientationSettleMs, 0))ms"
        }
        if l.strideSettledMs >= 0 {
            s += " decided on the stride estimate, proposed for \(fmt(l.strideSettledMs, 0))/\(fmt(strideFilterMs, 0))ms"
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
