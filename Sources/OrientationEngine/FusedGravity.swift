/// The gravity estimate from an accelerometer and a gyroscope together.
///
/// The gyroscope says what an accelerometer cannot: whether the device is turning. Calm,
/// for the judge, is then also a device turning slower than `GyroCalmRateDegS` (with the
/// same decay as every disturbance): a phone waved through an orientation, or turned
/// slowly on its way somewhere, is no longer taken for one held still, which is where an
/// accelerometer alone flickers (the figure-eight recordings).
/// The accelerometer's angle from its estimate, which measures a turn in progress as
/// well as sideways force, counts against `GyroCalmAngleDeg` rather than `CalmAngleDeg`:
/// the turning, the gyroscope reads; a hand settling a phone into its pose jolts the
/// readings about where they settle without turning it.
/// Read often enough to follow a turn (`GyroIntegrateMaxMs`), the gyroscope alone says
/// whether the device turns, and of the accelerometer's angle calm counts only what
/// moves φ (``GravityEstimate/inPlaneTurnChord``): a hand's wobble of the elevation
/// after a turn, or a push along the screen normal, no longer holds the turn back. That
/// disturbance is forgotten over `GyroDisturbanceDecayMs`, a few readings: the memory
/// that bridges a swing's still turning point for an accelerometer alone is not needed
/// where the turning is read at every reading.
///
/// An attitude is also kept: an up vector that the gyroscope turns (a world-fixed vector
/// seen in the device frame turns as du/dt = −ω × u) and that is pulled toward the
/// accelerometer's reading (its length too, up to `FusionPullMaxG`: the readings' mean is
/// gravity, their directions' mean is not) over `FusionCorrectionMs`, the less the more linear
/// acceleration there has been in the last `FusionTrustDecayMs` but never slower than
/// `FusionSlowestMs`, with the gyroscope's bias learned at rests it agrees with
/// (`GyroBiasLearnMs`, `GyroBiasRateDegS`); a rest, for the judge too, counts only from
/// the gyroscope's last reading of a turn. While the gyroscope's readings change smoothly
/// for their rate (`GyroSmoothRatio`), or, read at least every `GyroIntegrateMaxMs`, it
/// barely turns, tilt follows the attitude and the stride rule reads it averaged over
/// `AttitudeStrideFilterMs`: through a run or a swing it is the device's real attitude,
/// where the accelerometer's average is the arm's pull (for orientation, the readings
/// averaged over the same time must agree: the attitude carries the gyroscope's scale,
/// timing and bias errors). The rest and
/// calm rules still read the accelerometer's estimate: read by them too, the orientation
/// followed the real turns of a swinging arm, which last less than the second that makes
/// a change (flicker 12 to 124 on the dev set; docs/engine-history.md).
///
/// The same vector checks the gyroscope. The accelerometer alone decides
/// (``AccelerometerGravity``, which this wraps and feeds with every reading) while there
/// is no gyroscope, while it has fallen silent for `GyroTimeoutMs` (the attitude kept
/// meanwhile, moved only by calm readings, and integrated afresh when it sends again),
/// and for good once it is found wrong: stuck (the same reading for `GyroStuckMs`, or
/// nothing but unusable ones), or disagreeing with the accelerometer (the vector
/// arriving at three rests in a row that the gyroscope too sees still, or staying with
/// calm readings for an unbroken `GyroDisagreeMs`, more than `GyroDisagreeDeg` from
/// gravity: a unit error of 57×, degrees reported as radians, a wrong scale, or another
/// device's gyroscope).
/// Readings that are not finite, beyond `GyroMaxRateDegS` (saturated) or out of time
/// order are ignored; each kind of trouble is said once (``takeWarning()``).
struct FusedGravity: GravityEstimator {
    /// Why the gyroscope is not used.
    enum Trouble: String, Sendable {
        case stuck = "stuck (the same reading for seconds)"
        case unusable = "gave no usable reading for seconds (saturated or not finite)"
        case disagrees = "disagrees with the accelerometer (a wrong scale or unit, or another device's gyroscope)"
    }

    /// Rests in a row at which the gyroscope's up vector arrived more than
    /// `GyroDisagreeDeg` from the rest's reading: a gyroscope that turns the up vector
    /// too far or too little in every turn (a unit or scale error).
    static let disagreeingRestsLimit = 3

    private(set) var accelerometer: AccelerometerGravity
    private let correctionMs: Double
    private let calmRate: Double
    /// The chord between two unit vectors `GyroCalmAngleDeg` apart.
    private let calmChord: Double
    private let biasLearnMs: Double
    private let timeoutMs: Double
    private let stuckMs: Double
    private let maxRate: Double
    private let cosDisagree: Double
    private let disagreeMs: Double
    private let restMs: Double
    private let integrateMaxMs: Double

    /// The fused up vector (unit); zero until the first accelerometer reading.
    private var up = Vector3.zero
    /// The gyroscope's bias learned so far (rad/s).
    private(set) var bias = Vector3.zero
    /// The mean change between consecutive gyroscope readings and the mean rate, over
    /// `GyroSmoothWindowMs` (see `smooth`).
    private var change = 0.0
    private var meanRate = 0.0
    private let smoothRatio: Double
    private let smoothWindowMs: Double
    private var lastRate: Vector3?
    private var lastGyroMs = -Double.infinity
    /// The interval between the last two gyroscope readings.
    private var gyroIntervalMs = Double.infinity
    private var sameSinceMs = 0.0
    /// The first of the unusable readings (not finite, saturated) in a row; nil after a
    /// usable one.
    private var unusableSinceMs: Double?
    private var disagreeingMs = 0.0
    private var disagreeingRests = 0
    private var atRest = false
    /// At rest for `GyroBiasLongRestMs`: what the gyroscope reads is its bias, however far
    /// from the bias so far.
    private var atLongRest = false
    private let biasLongRestMs: Double
    /// When the accelerometer's current rest began, and when the gyroscope's reading last
    /// jumped (by more than `GyroBiasRateDegS` from the one before): a turn's start, or
    /// a tremor read at a low rate.
    private var restBeganMs = Double.infinity
    private var gyroJumpedMs = -Double.infinity
    private let biasRate: Double
    /// When the gyroscope last read a turn (beyond `GyroBiasRateDegS` of its bias).
    private var turnedMs = -Double.infinity
    private var rotation: DecayingPeak
    /// The same forgotten over `TiltDisturbanceDecayMs`, for tilt's calm.
    private var tiltRotation: DecayingPeak
    /// The same with the accelerometer's part measured within the screen's plane: what
    /// calm reads while the gyroscope is integrated (see `observe`).
    private var inPlane: DecayingPeak
    /// Recent linear acceleration (the readings' length error in multiples of
    /// `AccelerationGateG`), as a peak decaying over `FusionTrustDecayMs`: how little the
    /// accelerometer is trusted to correct the up vector.
    private var acceleration: DecayingPeak
    private let accelerationGate: Double
    /// The least the readings are trusted: FusionCorrectionMs / FusionSlowestMs.
    private let leastTrust: Double
    /// `FusionPullMaxG`: the longest pull, in units of 1 g.
    private let pullMax: Double
    /// The attitude averaged over `AttitudeStrideFilterMs`: what the stride rule reads.
    private var strideFilter: LowPass
    /// The readings averaged over the same time: what the attitude's average must agree with.
    private var readingsStrideFilter: LowPass
    private let standardGravity: Double
    private var lastRotation = 0.0
    /// Set once the gyroscope is found wrong; it is not used again.
    private(set) var trouble: Trouble?
    private var warned: Set<String> = []
    private var pendingWarning: String?
    /// The estimate after the last reading: the accelerometer's own while the gyroscope
    /// is not fused (no copy per reading), else the fused one.
    var estimate: GravityEstimate { fusing ? fusedEstimate : accelerometer.estimate }

    /// When the last accelerometer reading came (the same in both estimates), without a
    /// copy of the whole estimate.
    var lastReadingMs: Double { accelerometer.estimate.lastReadingMs }
    private var fusedEstimate = GravityEstimate()

    init(tunables t: EngineTunables, delivery: SensorDelivery) {
        accelerometer = AccelerometerGravity(tunables: t, delivery: delivery)
        correctionMs = t.fusionCorrectionMs
        calmRate = t.gyroCalmRateDegS * EngineMath.radiansPerDegree
        calmChord = 2 * EngineMath.sinDegrees(t.gyroCalmAngleDeg / 2)
        biasLearnMs = t.gyroBiasLearnMs
        timeoutMs = t.gyroTimeoutMs
        stuckMs = t.gyroStuckMs
        maxRate = t.gyroMaxRateDegS * EngineMath.radiansPerDegree
        cosDisagree = EngineMath.cosDegrees(t.gyroDisagreeDeg)
        disagreeMs = t.gyroDisagreeMs
        restMs = t.restMs
        integrateMaxMs = t.gyroIntegrateMaxMs
        smoothRatio = t.gyroSmoothRatio
        smoothWindowMs = t.gyroSmoothWindowMs
        biasRate = t.gyroBiasRateDegS * EngineMath.radiansPerDegree
        biasLongRestMs = t.gyroBiasLongRestMs > 0 ? t.gyroBiasLongRestMs : .infinity
        rotation = DecayingPeak(timeConstantMs: t.disturbanceDecayMs)
        tiltRotation = DecayingPeak(timeConstantMs: t.tiltDisturbanceDecayMs)
        inPlane = DecayingPeak(timeConstantMs: t.gyroDisturbanceDecayMs)
        acceleration = DecayingPeak(timeConstantMs: t.fusionTrustDecayMs)
        accelerationGate = t.accelerationGateG
        leastTrust = t.fusionSlowestMs > 0 ? min(1, t.fusionCorrectionMs / t.fusionSlowestMs) : 0
        pullMax = t.fusionPullMaxG
        strideFilter = LowPass(timeConstantMs: t.attitudeStrideFilterMs)
        readingsStrideFilter = LowPass(timeConstantMs: t.attitudeStrideFilterMs)
        standardGravity = t.standardGravity
    }

    var learnedGravity: Double? { accelerometer.learnedGravity }

    /// Whether the last accelerometer reading was fused with the gyroscope.
    private(set) var fusing = false

    /// The one log line for the latest trouble, once; nil when there is none new.
    mutating func takeWarning() -> String? {
        defer { pendingWarning = nil }
        return pendingWarning
    }

    private mutating func warn(_ text: String) {
        guard !warned.contains(text) else { return }
        warned.insert(text)
        pendingWarning = text
    }

    /// One gyroscope reading (rad/s, bias included).
    mutating func observeGyroscope(_ g: GyroscopeSample) {
        guard trouble == nil else { return }
        let w = Vector3(x: g.x, y: g.y, z: g.z)
        let t = Double(g.timeMs)
        guard w.lengthSquared.isFinite, w.length <= maxRate else {
            warn(w.lengthSquared.isFinite ? "gyroscope reading beyond its range (saturated): ignored"
                                          : "gyroscope reading not finite: ignored")
            // A moment's saturation (a knock) passes; a gyroscope that gives nothing else
            // for as long as a stuck one is no more use than one, and is given up with it.
            let since = min(unusableSinceMs ?? t, t)
            unusableSinceMs = since
            if t - since >= stuckMs { fail(.unusable) }
            return
        }
        guard t > lastGyroMs else {
            if lastGyroMs.isFinite { warn("gyroscope readings out of time order: ignored") }
            return
        }
        unusableSinceMs = nil
        if let last = lastRate, (w - last).length > biasRate { gyroJumpedMs = t }
        // Stuck: a real gyroscope's noise never repeats a reading for seconds.
        if let last = lastRate, last == w {
            if t - sameSinceMs >= stuckMs {
                fail(.stuck)
                return
            }
        } else {
            sameSinceMs = t
        }
        // After a silence longer than GyroTimeoutMs, this reading starts the integration
        // afresh: its rate is not applied to the time the gyroscope was silent.
        let dt = lastGyroMs.isFinite && t - lastGyroMs <= timeoutMs ? t - lastGyroMs : 0
        gyroIntervalMs = lastGyroMs.isFinite ? t - lastGyroMs : .infinity
        lastGyroMs = t
        if let previous = lastRate {
            let f = 1 - EngineMath.expNeg(dt / smoothWindowMs)
            change += ((w - previous).length - change) * f
            meanRate += ((w - bias).length - meanRate) * f
        }
        lastRate = w
        if atRest && biasLearnMs > 0 {
            let r = w - bias
            if r.length <= biasRate {
                bias += r * (1 - EngineMath.expNeg(dt / biasLearnMs))
            } else if atLongRest && gyroJumpedMs < restBeganMs && up != .zero {
                // Still for a second to the accelerometer, the device turns about no
                // horizontal axis (gravity would turn in its frame): what a gyroscope that
                // has read the same all along reads across gravity is bias, however large.
                // Along gravity it may be a turn about the vertical, which the
                // accelerometer cannot see. A reading that jumped is not: a turn's start,
                // which the accelerometer sees only some degrees later, or a hand's tremor
                // read at 10 Hz (a few degrees at 60°/s).
                let across = r - up * r.dot(up)
                bias += across * (1 - EngineMath.expNeg(dt / biasLearnMs))
            }
        }
        let rate = w - bias
        if rate.length > biasRate { turnedMs = t }
        if up != .zero && dt > 0 {
            // du/dt = −ω × u = u × ω.
            up = (up + up.cross(rate) * (dt / 1000)).unit
        }
        lastRotation = rate.length / calmRate
        rotation.observe(lastRotation, at: t)
        tiltRotation.observe(lastRotation, at: t)
        inPlane.observe(lastRotation, at: t)
    }

    /// Whether the gyroscope's readings change smoothly enough to be integrated: the mean
    /// change between consecutive readings at most `GyroSmoothRatio` times the mean rate.
    /// A turn at frequency f read at fs changes by 2·sin(π·f/fs) of its rate from one
    /// reading to the next: a swinging arm read at 10 Hz (f ≈ 1 Hz) passes, a running
    /// one (its steps at 2.5–3 Hz) does not, and integrating it would follow turns that
    /// happened between the readings. At 25 Hz a leg's jolts in a running pocket fail it
    /// too (a quarter to a half of the time): a jolt shorter than the interval, caught by
    /// a reading, counts for the whole interval. At 100 Hz and more every recorded motion
    /// passes.
    private var smooth: Bool { smoothRatio > 0 && change <= smoothRatio * meanRate }

    private mutating func fail(_ why: Trouble) {
        trouble = why
        fusing = false
        warn("gyroscope \(why.rawValue): the accelerometer decides alone")
    }

    mutating func observe(_ sample: Sample) -> Bool {
        let before = accelerometer.estimate.lastReadingMs
        guard accelerometer.observe(sample) else { return false }
        let t = Double(sample.timeMs)
        let dt = max(0, t - before)
        let wasAtRest = atRest
        atRest = accelerometer.estimate.restIsGravity && accelerometer.estimate.restReadings >= 2
            && accelerometer.estimate.restMs(at: t) >= restMs
        atLongRest = atRest && accelerometer.estimate.restMs(at: t) >= biasLongRestMs
        restBeganMs = atRest ? accelerometer.estimate.restSinceMs : .infinity
        fusing = trouble == nil && t - lastGyroMs <= timeoutMs
        // Without a gyroscope (none yet, or given up) there is no attitude to keep.
        guard trouble == nil, lastGyroMs.isFinite else { return true }
        if up == .zero { up = accelerometer.estimate.up }
        var e = accelerometer.estimate
        let reading = Vector3(sample).unit
        // What the attitude is pulled toward: the reading itself, in units of 1 g, not its
        // direction. Linear acceleration averages to nothing (the velocity comes back), so
        // the readings' mean is gravity; the mean of their directions is not, where the
        // push is not along gravity (a thigh pressing a phone in a pocket along its screen
        // normal: readings at 56° and −28° of elevation around a true 25°, the directions'
        // mean at 14°). No longer than `FusionPullMaxG`: a knock's length says nothing.
        let reaching = Vector3(sample) * (1 / accelerometer.gravity)
        let pull = reaching.lengthSquared > pullMax * pullMax ? reaching * (pullMax / reaching.length) : reaching
        acceleration.observe(e.lengthError / accelerationGate, at: t)
        if fusing && atRest {
            // Arriving at a rest: did the gyroscope turn the up vector where the
            // accelerometer now shows gravity?
            // (A rest the gyroscope also sees: at the end of a swing the readings can
            // agree for a moment while the arm still turns and pulls.)
            if !wasAtRest && lastRotation * calmRate <= biasRate {
                disagreeingRests = up.within(cosine: cosDisagree, of: e.restUp) ? 0 : disagreeingRests + 1
                if disagreeingRests >= Self.disagreeingRestsLimit {
                    fail(.disagrees)
                    return true
                }
            }
        }
        // Pulled toward the reading, the less the more linear acceleration there has been
        // lately (never less than FusionSlowestMs allows): its direction is no evidence
        // against the gyroscope (a turn puts readings ahead of any average), its length is.
        let d = acceleration.level(at: t)
        let gain = correctionMs > 0 ? 1 - EngineMath.expNeg(dt / correctionMs) : 1
        guard fusing else {
            // While the gyroscope is silent the accelerometer decides alone, and only calm
            // readings move the attitude: where a run's or a swing's readings point at any
            // one moment, or over a few seconds, is no place to restart it from (100° and
            // 40° from it in one recording), and through a run's silence the device's mean
            // attitude has not moved; a device turned and held meanwhile is followed.
            if e.disturbance.level(at: t) <= 1 { up = (up + (pull - up) * gain).unit }
            return true
        }
        // A rest is one the gyroscope sees too: readings that agree while the device
        // turns are a coincidence of the moment (a figure-eight read at 10 Hz, each
        // reading the mean of its interval, held two readings alike while turning at
        // 40–70°/s), and only the readings since its last turn count.
        if e.restReadings > 0 && turnedMs > e.restSinceMs { e.restSinceMs = turnedMs }
        let k = gain * max(leastTrust, 1 / (1 + d * d))
        up = (up + (pull - up) * k).unit
        // Disagreement: the accelerometer calm, the fused up vector far from its reading.
        if e.lastDisturbance <= 1 && !up.within(cosine: cosDisagree, of: reading) {
            disagreeingMs += dt
            if disagreeingMs >= disagreeMs {
                fail(.disagrees)
                return true
            }
        } else {
            // Only an unbroken stretch counts: at the calm ends of a swing the reading is
            // the arm's pull for a moment, not gravity.
            disagreeingMs = 0
        }
        // Calm: neither turning nor disturbed (the accelerometer's own measure: a swing's
        // pull, a stride, a knock), one peak that decays. The reading's angle from the
        // estimate counts against GyroCalmAngleDeg: the turning it also measures, the
        // gyroscope reads.
        let lengthDisturbance = e.lengthError / accelerationGate
        let disturbed = max(e.turnChord / calmChord, lengthDisturbance)
        let disturbedInPlane = max(e.inPlaneTurnChord / calmChord, lengthDisturbance)
        rotation.observe(disturbed, at: t)
        tiltRotation.observe(disturbed, at: t)
        inPlane.observe(disturbedInPlane, at: t)
        // Where the gyroscope's readings follow the motion, its up vector is what tilt
        // follows and, averaged over AttitudeStrideFilterMs (a running hand rolls the phone
        // with every step), what the stride rule reads, with the readings averaged over the
        // same time (a real turn shows in both at once): through a run or a swing it is the
        // device's real attitude, and a proposal it holds for StrideMs is a real hold. They
        // follow it while the device's turning is slow for the reading rate (see
        // `smooth`), at any rate: a 10 Hz poll follows a swinging arm, not a running one;
        // a 25 Hz poll a running hand, not a leg's jolts in a pocket. Read at least every
        // GyroIntegrateMaxMs, also while it barely turns (within GyroBiasRateDegS): its
        // noise is then all the change between readings, and there is no turn to miss.
        let integrates = gyroIntervalMs <= integrateMaxMs
        let followed = smooth || (integrates && meanRate <= biasRate)
        if followed {
            if strideFilter.value == .zero {
                strideFilter.reset(to: up)
                readingsStrideFilter.reset(to: Vector3(sample))
            }
            strideFilter.update(up, dtMs: dt)
            readingsStrideFilter.update(Vector3(sample), dtMs: dt)
            e.strideAttitude = strideFilter.value.unit
            e.strideUp = readingsStrideFilter.value.unit
            e.strideLength = readingsStrideFilter.value.length
                / (e.gravityConfirmed ? accelerometer.gravity : standardGravity)
        } else {
            strideFilter.reset(to: .zero)
        }
        if followed {
            e.tiltUp = up
            e.isAttitude = true
        }
        // Read often enough to follow a turn, the gyroscope says whether the device turns;
        // of the accelerometer's disturbance, calm then needs only what moves φ (a shake
        // along the screen normal, or a wobble of the elevation, leaves the orientation
        // alone: a phone set into a pose by hand is still wobbling when it is there).
        // Read more rarely, a turn can fall between its readings, and the accelerometer's
        // whole angle still counts.
        e.attitudeIsIntegrated = integrates
        if integrates {
            e.disturbance = inPlane
            e.lastDisturbance = max(lastRotation, disturbedInPlane)
        } else {
            e.disturbance = rotation
            e.tiltDisturbance = tiltRotation
            e.lastDisturbance = max(lastRotation, disturbed)
        }
        fusedEstimate = e
        return true
    }
}
