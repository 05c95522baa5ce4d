/// The gravity estimate from an accelerometer alone.
///
/// - **Direction**: a low-pass filter (`GravityFilterMs`) of the readings, each weighted
///   by how near its length is to 1 g (1 / (1 + (error/`AccelerationToleranceG`)²)): a
///   shake or a stride's bounce says little about where gravity is. A plain low-pass of
///   the readings (`TiltFilterMs`, every reading alike: over a stride's cycle the linear
///   acceleration cancels, while the readings that happen to be 1 g long are particular
///   moments of it) is the tilt estimate; a slow one (`StrideFilterMs`) the stride
///   estimate.
/// - **Disturbance** of each reading, in multiples of calm: the larger of its angle from
///   the estimate (`CalmAngleDeg`: sideways forces that turn the apparent gravity, and the
///   lag of a turn in progress) and its length's error (`AccelerationGateG`: a bounce, a
///   swing's pull). Its recent peak decays over `DisturbanceDecayMs`. The angle itself,
///   whole and within the screen's plane, is published for a gyroscope-fused estimate,
///   which measures it against its own limit (``GravityEstimate/turnChord``).
/// - **Support**: the share of the recent readings (over `GravityShareMs`) that were at
///   1 g, each counted as the filter weighs it (``GravityEstimate/gravityShare``).
/// - **Lasting linear acceleration**: the length error averaged over `LengthFilterMs`
///   (``GravityEstimate/meanLengthError``) and when it last fell to calm
///   (``GravityEstimate/lengthCalmFromMs``), which the pick-up's gates read.
/// - **Rest** (``Rest``) and the sensor's 1 g (``GravityMagnitude``). When a rest at 1 g is
///   first seen, its mean replaces the filtered direction: the filters only stand in for
///   it while the device moves.
struct AccelerometerGravity: GravityEstimator {
    private let tolerance: Double
    private let calmChord: Double
    private let accelerationGate: Double
    private let restMs: Double
    private let restGravity: Double
    private let relearnMs: Double
    private let maxIntervalMs: Double
    private let standardGravity: Double
    private var gravityShareGain: ExponentialGain

    private var started = false
    private var magnitude: GravityMagnitude
    private var filter: LowPass
    /// The same without the weights (``GravityEstimate/meanUp``).
    private var meanFilter: LowPass
    private var tiltFilter: LowPass
    private var strideFilter: LowPass
    /// The gain of the average of the readings' length error (`LengthFilterMs`).
    private var lengthGain: ExponentialGain
    private var rest: Rest
    private var restReached = false
    /// The length part of the disturbance alone (``GravityEstimate/lengthCalmFromMs``).
    private var lengthPeak: DecayingPeak
    /// The mean of the recent intervals between readings (over about
    /// `intervalsAveraged`).
    private var usualIntervalMs: Double?
    /// How many recent intervals `usualIntervalMs` averages over: enough that one late
    /// or early poll does not move it much, few enough to follow a rate that changes.
    static let intervalsAveraged = 8.0
    /// The sensor is silent once no reading has come for this many times its usual
    /// interval: a poll's timestamps jitter, and a reading that came early must not
    /// make the next, on time, look like silence.
    static let silenceAfterIntervals = 1.5
    /// A reading longer than this many times the sensor's confirmed 1 g is no reading at
    /// all (a bit error, a broken frame): no hand or knock comes near it.
    static let absurdLengthRatio = 1000.0
    /// A rest re-learns the 1 g from at least this many readings' mean: one reading is
    /// no mean.
    static let restReadingsToLearn = 2
    private(set) var estimate = GravityEstimate()

    init(tunables t: EngineTunables, delivery: SensorDelivery) {
        estimate.silenceHolds = delivery == .onChange
        tolerance = t.accelerationToleranceG
        // The distance between two unit vectors CalmAngleDeg apart.
        calmChord = 2 * EngineMath.sinDegrees(t.calmAngleDeg / 2)
        accelerationGate = t.accelerationGateG
        restMs = t.restMs
        restGravity = t.restGravityG
        relearnMs = t.relearnMs
        maxIntervalMs = t.maxIntervalMs
        standardGravity = t.standardGravity
        gravityShareGain = ExponentialGain(timeConstantMs: t.gravityShareMs)
        magnitude = GravityMagnitude(standardGravity: t.standardGravity)
        filter = LowPass(timeConstantMs: t.gravityFilterMs)
        meanFilter = LowPass(timeConstantMs: t.gravityFilterMs)
        tiltFilter = LowPass(timeConstantMs: t.tiltFilterMs)
        strideFilter = LowPass(timeConstantMs: t.strideFilterMs)
        lengthGain = ExponentialGain(timeConstantMs: t.lengthFilterMs)
        rest = Rest(angleDeg: t.restAngleDeg, band: t.restBandG)
        estimate.disturbance = DecayingPeak(timeConstantMs: t.disturbanceDecayMs)
        estimate.strideDisturbance = DecayingPeak(timeConstantMs: t.strideFilterMs)
        estimate.tiltDisturbance = DecayingPeak(timeConstantMs: t.tiltDisturbanceDecayMs)
        lengthPeak = DecayingPeak(timeConstantMs: t.disturbanceDecayMs)
    }

    var learnedGravity: Double? { magnitude.isConfirmed ? magnitude.value : nil }

    /// The sensor's 1 g as estimated now (confirmed or not).
    var gravity: Double { magnitude.value }

    mutating func observe(_ sample: Sample) -> Bool {
        let a = Vector3(sample)
        let m2 = a.lengthSquared
        guard m2.isFinite, m2 > 0 else { return false }
        let m = m2.squareRoot()
        // Before the 1 g is confirmed the estimate may itself come from a reading in
        // free fall: nothing is too long yet.
        guard !magnitude.isConfirmed || m < Self.absurdLengthRatio * magnitude.value else { return false }
        let t = Double(sample.timeMs)
        guard started else {
            started = true
            magnitude.start(a)
            filter.reset(to: a)
            meanFilter.reset(to: a)
            tiltFilter.reset(to: a)
            strideFilter.reset(to: a)
            rest.observe(a, length: m, since: t)
            estimate.up = a.unit
            estimate.meanUp = estimate.up
            estimate.tiltUp = estimate.up
            estimate.strideUp = estimate.up
            estimate.strideLength = 1
            estimate.lastReadingMs = t
            estimate.silenceMs = maxIntervalMs
            publishRest()
            return true
        }
        // A timestamp that does not increase counts as no time passing.
        let dt = max(0, t - estimate.lastReadingMs)
        let credit = min(dt, maxIntervalMs)
        estimate.intervalMs = dt
        estimate.lastReadingMs = max(estimate.lastReadingMs, t)
        // Silent: half as long again (`silenceAfterIntervals`) as this sensor took to
        // send, or as it usually takes, whichever is longer.
        // A reading after the sensor fell silent: how it moved meanwhile is not known.
        let lagDt = min(dt, estimate.silenceMs)
        if dt > 0 { usualIntervalMs = usualIntervalMs.map { $0 + (credit - $0) / Self.intervalsAveraged } ?? credit }
        estimate.silenceMs = min(maxIntervalMs, max(1, Self.silenceAfterIntervals * max(dt, usualIntervalMs ?? dt)))

        rest.observe(a, length: m, since: EngineMath.firstSeen(at: t, intervalMs: credit))
        let restFor = t - rest.sinceMs
        magnitude.observe(a, dtMs: credit)
        if rest.readings >= Self.restReadingsToLearn && restFor >= restMs {
            magnitude.rest(length: rest.meanLength, restMs: restFor, dtMs: credit,
                           tolerance: tolerance, relearnMs: relearnMs)
        }
        let g = magnitude.value
        let error = m / g - 1

        // Disturbance, before the filter moves: the sideways part of the reading against
        // the estimate (rescaled for the interval, so a steady turn measures the same at
        // every rate: a filter that tracked continuously would lag by ω·τ) and its length's
        // error, each in multiples of its calm limit. Across a silence, rescaled for no
        // longer than the silence: how the device moved across a gap is not known, and a
        // run's first reading after a 0.6 s dropout, 12° from the estimate, had counted
        // as a turn spread over the gap, calm enough to commit on.
        let turned = (a * (1 / m) - estimate.up).length
        let lagScale = lagDt > 0 && filter.timeConstantMs > 0
            ? min(1, filter.timeConstantMs * filter.gain(dtMs: lagDt) / lagDt) : 1
        let lengthDisturbance = abs(error) / accelerationGate
        estimate.turnChord = turned * lagScale
        let d = max(estimate.turnChord / calmChord, lengthDisturbance)
        estimate.disturbance.observe(d, at: t)
        estimate.strideDisturbance.observe(d, at: t)
        estimate.tiltDisturbance.observe(d, at: t)
        estimate.lastDisturbance = d
        estimate.lengthError = abs(error)
        estimate.inPlaneTurnChord = Self.inPlaneChord(a, estimate.up) * lagScale

        let deviation = error / tolerance
        let weight = 1 / (1 + deviation * deviation)
        estimate.gravityShare += (weight - estimate.gravityShare) * gravityShareGain(dtMs: credit)
        filter.update(a, dtMs: dt, weight: weight)
        meanFilter.update(a, dtMs: dt)
        // Every reading alike: the readings at 1 g are particular moments of a stride or a
        // swing (TiltFilterMs).
        tiltFilter.update(a, dtMs: dt)
        strideFilter.update(a, dtMs: dt)
        // The linear acceleration that carries the device, for the pick-up's gates: a
        // knock or the hand's stop (one or two readings, 10–20 ms) is averaged away; a
        // stride's landing, a bounce or a shove, tens of ms and more, is not. A reading of
        // more force than the average counts for no more than the filter's time, however
        // long since the one before: it saw one instant, maybe a knock (at 25 Hz a knock
        // read alone had counted at 0.8, a jolt that ended the pick-up its 100 Hz twin is
        // averaged from). A reading of less counts for its whole interval: the force the
        // one before saw is that old, and this is what is left of it.
        let rising = abs(error) > estimate.meanLengthError
        let lengthDt = rising ? min(dt, lengthGain.timeConstantMs) : dt
        estimate.meanLengthError += (abs(error) - estimate.meanLengthError) * lengthGain(dtMs: lengthDt)
        let lasting = estimate.meanLengthError / accelerationGate
        // Only a reading beyond calm can hold it (one within leaves the peak to decay as it
        // would): most readings cost no more than this comparison.
        if lasting > 1 {
            lengthPeak.observe(lasting, at: t)
            estimate.lengthCalmFromMs = .infinity
        } else if estimate.lengthCalmFromMs == .infinity {
            estimate.lengthCalmFromMs = lengthPeak.time(fallingTo: 1)
        }
        publishRest()
        if estimate.restIsGravity && rest.readings >= 2 && restFor >= restMs {
            if !restReached {
                // The rest's mean is the best estimate there is; the filters go on from it.
                restReached = true
                filter.reset(to: rest.mean)
                meanFilter.reset(to: rest.mean)
                tiltFilter.reset(to: rest.mean)
            }
        } else {
            restReached = false
        }
        estimate.up = filter.value.unit
        estimate.meanUp = meanFilter.value.unit
        estimate.tiltUp = tiltFilter.value.unit
        // The stride average's length once, for its direction and its length in g.
        let strideLength = strideFilter.value.length
        estimate.strideUp = strideLength > 0 ? strideFilter.value * (1 / strideLength) : .zero
        // Before any rest the sensor's 1 g is a guess (the mean of readings pulled every
        // way): the stride estimate is measured against StandardGravity then.
        estimate.gravityConfirmed = magnitude.confirmedMs > 0
        estimate.strideLength = strideLength / (estimate.gravityConfirmed ? g : standardGravity)
        return true
    }

    /// The distance between the unit directions of `a` and `b` within the screen's plane
    /// (x, y): 2·sin(Δφ/2); 2 (the most) when either has no part in the plane.
    static func inPlaneChord(_ a: Vector3, _ b: Vector3) -> Double {
        let la = (a.x * a.x + a.y * a.y).squareRoot(), lb = (b.x * b.x + b.y * b.y).squareRoot()
        guard la > 0, lb > 0 else { return 2 }
        let cosine = (a.x * b.x + a.y * b.y) / (la * lb)
        return max(0, 2 - 2 * cosine).squareRoot()
    }

    private mutating func publishRest() {
        let length = rest.meanLength
        estimate.restUp = length > 0 ? rest.mean * (1 / length) : .zero
        estimate.restSinceMs = rest.sinceMs
        estimate.restReadings = rest.readings
        estimate.restIsGravity = abs(length / magnitude.value - 1) <= restGravity
    }
}
