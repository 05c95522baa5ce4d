/// What the judge is told about gravity after each reading: the first of the engine's
/// two stages hands this to the second.
///
/// Everything the judge decides from is here, and nothing about how it was estimated:
/// an accelerometer alone (``AccelerometerGravity``) or, where a gyroscope is fitted,
/// one fused with it, behind the same ``GravityEstimator`` interface. Times are in ms on
/// the samples' clock.
struct GravityEstimate: Sendable {
    /// Where gravity points (up, in the device frame), as a unit vector: orientation is
    /// read from it.
    var up = Vector3.zero
    /// The readings' plain average over `GravityFilterMs` (unit): where the hand that
    /// holds a device shakes it in place, the shake averages out (the velocity comes
    /// back), so this is gravity, while `up`, weighted toward the readings near 1 g, leans
    /// toward the moments of the shake that happen to be 1 g long and lags the hand's
    /// stop. The pick-up allowance reads it (``PickUp``).
    var meanUp = Vector3.zero
    /// The readings' plain average over a part of a stride (every reading alike, so that
    /// the periodic forces of walking and running average out): tilt is read from it.
    var tiltUp = Vector3.zero
    /// Whether `up` and `tiltUp` are the device's attitude, turned by a gyroscope, rather
    /// than an average of readings that a hand's pull tips: tilt then follows it without
    /// waiting for calm (a swinging arm is never calm, yet its tilt is known).
    var isAttitude = false
    /// Whether `tiltUp` is an attitude integrated from a gyroscope read often enough to
    /// follow every turn (`GyroIntegrateMaxMs`): it then says where the device is at each
    /// reading, and calm commits only what it proposes too.
    var attitudeIsIntegrated = false
    /// A slow average of the readings (unit), over which a run's or a swing's forces
    /// average out while gravity does not, and its length in g (of the sensor's 1 g once
    /// a rest has shown it, of `StandardGravity` before): over `StrideFilterMs`, or with
    /// a gyroscope integrated over `AttitudeStrideFilterMs`, as `strideAttitude` is.
    var strideUp = Vector3.zero
    var strideLength = 0.0
    /// With a gyroscope integrated (read often enough, or at 10 Hz while its readings
    /// change smoothly), its attitude averaged over `AttitudeStrideFilterMs` (unit; zero
    /// otherwise): the device's real attitude
    /// through a run or a swing, where the readings' average is tipped by the arm's pull.
    /// Tilt's stride rule reads it; the orientation's stride rule commits only where the
    /// readings' average lies on its side of the boundary (each errs in its own way: the
    /// average is pulled, the attitude carries the gyroscope's scale, timing and bias
    /// errors through a wave).
    var strideAttitude = Vector3.zero
    /// Whether a rest has shown the sensor's 1 g.
    var gravityConfirmed = false
    /// Recent disturbance, in multiples of what counts as calm (1): linear acceleration
    /// and turning, as the largest recent value forgotten over `DisturbanceDecayMs`.
    var disturbance = DecayingPeak(timeConstantMs: 0)
    /// The same forgotten over `StrideFilterMs` (the stride estimate's time): whether the
    /// readings over which that estimate averages held a jolt.
    var strideDisturbance = DecayingPeak(timeConstantMs: 0)
    /// When the readings' length is calm for good: the time the length part of the
    /// disturbance (``meanLengthError`` over `AccelerationGateG`, forgotten as
    /// `disturbance` is) falls or fell to calm; +∞ while the last reading's own is beyond
    /// it. Linear acceleration, which the pick-up allowance does not excuse (``PickUp``).
    var lengthCalmFromMs = -Double.infinity
    /// The same forgotten over `TiltDisturbanceDecayMs`: what tilt's calm reads.
    var tiltDisturbance = DecayingPeak(timeConstantMs: 0)
    /// The share of the recent readings (over `GravityShareMs`) that were at 1 g, each
    /// counted as the gravity filter weighs it: how much of what the estimate rests on is
    /// gravity rather than a hand's pull (1: every reading; a run, about a third).
    var gravityShare = 1.0
    /// The last reading's own disturbance (held, a reading stands for itself).
    var lastDisturbance = 0.0
    /// How far the last reading's length was from the sensor's 1 g, as a fraction of it:
    /// linear acceleration alone, whatever the direction.
    var lengthError = 0.0
    /// The readings' length error (as ``lengthError``) averaged over `LengthFilterMs`: the
    /// linear acceleration that lasts, which the pick-up's gates read (``PickUp``).
    var meanLengthError = 0.0
    /// The last reading's turn from the estimate before it, as the chord between their
    /// unit directions (rescaled for the interval as the disturbance is): what the
    /// disturbance measures against `CalmAngleDeg`, for an estimator that measures it
    /// against another limit (``FusedGravity``, `GyroCalmAngleDeg`).
    var turnChord = 0.0
    /// The same within the screen's plane only: the part of the turn that can move φ. A
    /// push along the screen normal, or a hand's wobble about the screen's horizontal
    /// axis, changes the elevation, not the orientation; with a gyroscope to tell whether
    /// the device turns, this is the part of the angle calm needs (``FusedGravity``).
    var inPlaneTurnChord = 0.0
    /// The current run of unchanged readings (``Rest``): its mean direction (unit), when
    /// it began, how many readings it holds, and whether its length is the sensor's 1 g
    /// (then its mean is gravity itself).
    var restUp = Vector3.zero
    var restSinceMs = 0.0
    var restReadings = 0
    var restIsGravity = false
    /// When the last reading came, and after how long without one the sensor counts as
    /// silent (an event-driven sensor that stopped sending: its last reading still holds).
    var lastReadingMs = 0.0
    /// The time from the reading before to the last one.
    var intervalMs = 0.0
    var silenceMs = 0.0
    /// Whether the sensor's silence means its last reading still holds
    /// (``SensorDelivery/onChange``); a stream's gap tells nothing.
    var silenceHolds = true

    /// Whether the sensor has been silent at `t`, its last reading holding since.
    func silent(at t: Double) -> Bool { silenceHolds && t - lastReadingMs >= silenceMs }

    /// How long the rest has lasted at `t`: to the last reading, or to `t` once the sensor
    /// is silent (it would have sent a reading had anything changed).
    func restMs(at t: Double) -> Double { (silent(at: t) ? t : lastReadingMs) - restSinceMs }
}

/// The first stage of the engine: readings in, a ``GravityEstimate`` out.
protocol GravityEstimator: Sendable {
    /// Takes one accelerometer reading; false when it is ignored (non-finite, zero, or
    /// absurdly long), and then nothing changed.
    mutating func observe(_ sample: Sample) -> Bool
    /// The estimate after the last reading.
    var estimate: GravityEstimate { get }
    /// The sensor's 1 g in its own unit, once confirmed by about a second of rest.
    var learnedGravity: Double? { get }
}
