/// The engine's tunable constants.
///
/// All times are in milliseconds of sample time (never sample counts), so the engine
/// behaves the same from 10 to 200 Hz, with jittered timestamps and with gaps. Angles are
/// in degrees; accelerations are fractions of the sensor's own 1 g (learned, see
/// `GravityMagnitude`), so they hold at any sensor scale. Every tunable can be set from the
/// configuration file, section `[Engine]`, by its key (the table ``entries``: key,
/// property, unit, range and summary, from which parsing, lookup and documentation come).
public struct EngineTunables: Sendable, Equatable {
    // MARK: The gravity estimate

    /// `GravityFilterMs`: time constant of the low-pass filter that estimates where
    /// gravity points, and of the same average unweighted that a pick-up reads. Larger is
    /// smoother (tremor, noise) but slower to follow a turn.
    public var gravityFilterMs: Double = 80

    /// `AccelerationToleranceG`: a reading whose length differs from 1 g by this much (a
    /// fraction of 1 g) counts half in the gravity filter, by twice this a fifth; a rest
    /// whose length differs by more is not at 1 g (no gravity, until `RelearnMs`).
    public var accelerationToleranceG: Double = 0.2

    /// `CalmAngleDeg`: a reading this far in direction from the gravity estimate is as
    /// disturbed as calm allows: sideways forces turn the apparent gravity, and a turn in
    /// progress puts readings ahead of the estimate.
    public var calmAngleDeg: Double = 10

    /// `AccelerationGateG`: a reading whose length differs from 1 g by this much is as
    /// disturbed as calm allows (a stride's bounce, a swing's pull, a knock).
    public var accelerationGateG: Double = 0.25

    /// `DisturbanceDecayMs`: how fast a disturbance is forgotten: one k times calm keeps
    /// the device from being calm for DisturbanceDecayMs times ln k after it.
    public var disturbanceDecayMs: Double = 125

    /// `GyroDisturbanceDecayMs`: the same for calm while a gyroscope is integrated
    /// (`GyroIntegrateMaxMs`). The accelerometer alone cannot tell a turn's pause from
    /// its end (a swing's turning point is still for a moment), and the memory bridges
    /// such pauses; the gyroscope reads the turning at every reading, and the attitude
    /// sees a tumble toward flat at once, so calm needs only a few readings' memory: a
    /// pose reached while the hand still shakes it is committed when the shaking stops.
    public var gyroDisturbanceDecayMs: Double = 25

    /// `GravityShareMs`, `CalmGravityShare`: the share of the recent readings (over
    /// `GravityShareMs`) that were at 1 g, each counted as the gravity filter weighs it
    /// (`AccelerationToleranceG`), must be at least `CalmGravityShare` for calm to commit
    /// an orientation. A run's strides leave a moment now and then in which the
    /// disturbance has decayed and a reading or two happen to be near 1 g: the estimate
    /// then rests on those few readings, in whichever direction the arm pulled, and nothing
    /// would correct it for as long as the run lasts. A hand setting a device into a pose
    /// shakes it, but most of its readings stay near 1 g. 0 turns the rule off.
    public var gravityShareMs: Double = 500
    public var calmGravityShare: Double = 0.5

    /// `TiltDisturbanceDecayMs`: the same as `DisturbanceDecayMs`, for tilt's calm. Tilt
    /// has no `CalmGravityShare` to guard it (with one, its accuracy fell), so it keeps the
    /// longer memory that outlasts the quiet moments of a stride. Since `TiltSettleMs`
    /// counts from the last reading beyond `TiltDisturbanceLimit`, this memory decides only
    /// after a shock more than e^(`TiltSettleMs` / τ), about 3.8, times that limit: no
    /// dev recording has one (0 and 150 ms score the same), a tumbled device may.
    public var tiltDisturbanceDecayMs: Double = 150

    /// `TiltFilterMs`: time constant of the plain low-pass of the readings from which tilt
    /// is judged. Plain, every reading counted alike (not weighted toward the readings at
    /// 1 g as the gravity estimate is): a periodic motion's linear acceleration averages
    /// to nothing over its cycle (the velocity comes back), but the readings that happen
    /// to be 1 g long are particular moments of the cycle, whose mean is tipped the way
    /// the arm pulls there.
    public var tiltFilterMs: Double = 100

    /// `RestAngleDeg`: readings within this angle of each other (and `RestBandG` in length)
    /// for `RestMs` are a rest: the device is held still, and their mean is gravity.
    public var restAngleDeg: Double = 5

    /// `RestBandG`: how far a rest's readings may differ in length (fraction of 1 g).
    public var restBandG: Double = 0.04

    /// `RestGravityG`: how near the sensor's 1 g a rest's length must be (a fraction of
    /// 1 g) for its mean to be gravity: a still hand reads 1 g within a few percent, a
    /// stride's readings that happen to agree for a moment rarely do.
    public var restGravityG: Double = 0.08

    /// `RestMs`: how long readings must stay unchanged to be a rest. 0 turns the rest
    /// rule off.
    public var restMs: Double = 100

    /// `RelearnMs`: a rest this long at a length other than the sensor's 1 g becomes the
    /// new 1 g (a steady reading is gravity, whatever its length).
    public var relearnMs: Double = 500

    /// `StrideFilterMs`: time constant of the *stride estimate*, a slow low-pass of the
    /// readings over which a run's or a swing's forces average out while gravity does not.
    public var strideFilterMs: Double = 1000

    // MARK: Gyroscope fusion

    /// `FusionCorrectionMs`: time constant over which the gyroscope's up vector (which
    /// checks the gyroscope against the accelerometer) is pulled toward a calm
    /// accelerometer reading (a disturbed one pulls less): long enough that a stride's or
    /// a swing's forces do not tip it, short enough to cancel the drift of a bias not yet
    /// learned.
    public var fusionCorrectionMs: Double = 250

    /// `FusionTrustDecayMs`: how long linear acceleration (a reading's length off 1 g, in
    /// multiples of `AccelerationGateG`) keeps lowering the accelerometer's pull on the
    /// gyroscope's up vector, as a peak that decays over this time: in a run or a swing
    /// the readings that happen to be 1 g long point where the arm pulls, not up.
    public var fusionTrustDecayMs: Double = 1000

    /// `FusionSlowestMs`: however much linear acceleration there is, the pull toward the
    /// readings is never slower than this: over a few seconds their mean is near gravity,
    /// while a gyroscope's errors (its scale a few percent off, a bias not yet learned)
    /// turn the up vector without bound.
    public var fusionSlowestMs: Double = 2500

    /// `FusionPullMaxG`: the attitude is pulled toward each reading in proportion to its
    /// length (the readings' mean is gravity, the mean of their directions is not), up to
    /// this length in g: a person's movements read up to 2–3 g (a stride's landing, a
    /// swing's pull), while a knock or a fault read at 100 g would tip it tens of degrees.
    public var fusionPullMaxG: Double = 3

    /// `GyroCalmRateDegS`: with a gyroscope, a device turning faster than this is not
    /// calm (a turn or a wave still under way).
    public var gyroCalmRateDegS: Double = 90

    /// `GyroCalmAngleDeg`: with a gyroscope, the angle between a reading and the gravity
    /// estimate that is as disturbed as calm allows, in place of `CalmAngleDeg`. That angle
    /// measures a turn in progress and sideways force at once; the gyroscope reads the
    /// turning itself, and what is left for the angle is the force: a hand settling a
    /// phone into its pose jolts its readings 10–15° about where they settle without
    /// turning it (p95 latency at 10 Hz 363 → 284 ms, every changed transition sooner;
    /// 20° lets a run in the hand read at 10 Hz with a late gyroscope lock, 1 flicker).
    public var gyroCalmAngleDeg: Double = 15

    /// `GyroBiasLearnMs`: time constant over which the gyroscope's bias is learned while
    /// the accelerometer shows the device at rest.
    public var gyroBiasLearnMs: Double = 2000

    /// `GyroBiasRateDegS`: at rest (to the accelerometer), a gyroscope reading further
    /// than this from the bias learned so far is a turn, not bias: a stride has still
    /// moments too (a phone in a pocket at the top of a step) while the leg still turns.
    /// Gyroscopes' biases are a few degrees per second (a Nexus 5's, 4.3), up to 20 by
    /// the MPU-6050's datasheet (the PinePhone's).
    public var gyroBiasRateDegS: Double = 25

    /// `GyroBiasLongRestMs`: a rest (to the accelerometer) this long teaches the bias
    /// whatever the gyroscope reads: no stride or swing is still for a second, and a
    /// gyroscope's zero-rate offset may be 20°/s on each axis (35°/s in all), beyond
    /// `GyroBiasRateDegS` of a bias not yet learned; never learned, it turned the
    /// attitude, and the tilt that follows it, by tens of degrees in every swing.
    public var gyroBiasLongRestMs: Double = 1000

    /// `GyroTimeoutMs`: a gyroscope silent this long is not fused until it sends again.
    public var gyroTimeoutMs: Double = 250

    /// `GyroStuckMs`: a gyroscope that repeats one reading this long is stuck, and not used;
    /// so is one that reads nothing but saturated or non-finite readings this long.
    public var gyroStuckMs: Double = 2000

    /// `GyroMaxRateDegS`: readings beyond this are saturated, and ignored.
    public var gyroMaxRateDegS: Double = 2000

    /// `GyroIntegrateMaxMs`: a gyroscope read at least this often (20 Hz) is integrated
    /// into the attitude that tilt and the stride rule read; one read more rarely (a
    /// 10 Hz poll) misses the turns between its readings, and only says whether the
    /// device is turning.
    public var gyroIntegrateMaxMs: Double = 50

    /// `GyroSmoothRatio`, `GyroSmoothWindowMs`: tilt and the stride rule follow the
    /// gyroscope's attitude while its readings change smoothly: the mean change between
    /// consecutive readings (over the last `GyroSmoothWindowMs`) at most this many times the
    /// mean rate (read at least every `GyroIntegrateMaxMs`, also while it barely turns). A
    /// turn at frequency f read at fs changes by 2·sin(π·f/fs) of its rate between
    /// readings: 0.8 is a motion read at least eight times a cycle (a swinging arm at
    /// 10 Hz, not a running one; at 25 Hz a running hand, not a leg's jolts in a pocket).
    public var gyroSmoothRatio: Double = 0.8
    public var gyroSmoothWindowMs: Double = 1000

    /// `AttitudeStrideFilterMs`: time constant of the average of the gyroscope's attitude
    /// that the stride rule reads: a running hand rolls the phone by tens of degrees with
    /// every step, and the rule needs a second of one proposal. The readings are averaged
    /// over the same time, so that a real turn shows in both at once: the orientation's
    /// stride rule needs both to agree.
    public var attitudeStrideFilterMs: Double = 500

    /// `GyroDisagreeDeg`, `GyroDisagreeMs`: a fused up vector this far from calm
    /// accelerometer readings for this long means the gyroscope is wrong (a unit error, a
    /// wrong scale, another device's): it is not used.
    public var gyroDisagreeDeg: Double = 25
    public var gyroDisagreeMs: Double = 1000

    // MARK: The judge

    /// `ConfirmReadings`: how many readings a change needs (a silent sensor's last
    /// reading counts once more): one reading, at a low rate, may be one stride's. With
    /// the default settle times no rule's wait is over at a proposal's first reading
    /// (`OrientationSettleMs` is longer than the half interval a proposal is credited
    /// back, at most `MaxIntervalMs` / 2); with shorter ones configured, this still holds.
    public var confirmReadings: Double = 2

    /// `OrientationHysteresisDeg`: how far past the 45° boundary between two orientations
    /// gravity must go before a change is proposed.
    public var orientationHysteresisDeg: Double = 15

    /// `OrientationSettleMs`: how long a proposal must stand before calm commits it.
    public var orientationSettleMs: Double = 100

    /// `EdgeDeg`, `EdgeSettleMs`: a proposal less than `EdgeDeg` past the leave angle
    /// (45° + `OrientationHysteresisDeg` from the current orientation's centre) must stand
    /// `EdgeSettleMs`, at rest or calm, before it is committed. A person who means a turn
    /// holds the device near the new orientation; a reading only just past the leave angle
    /// is most often the end of a movement: a swing's turning point, the arm's pull in a
    /// run, a hand's roll at the ear, which last a fraction of a second. 7° is a hand's
    /// tremor (2.5–4.5°) with room for noise. 0 turns the rule off.
    public var edgeDeg: Double = 7
    public var edgeSettleMs: Double = 250

    /// `PickUpRestMs`, `PickUpMs`: for `PickUpMs` after the device lay still at 1 g for
    /// `PickUpRestMs`, a movement is a pick-up, and calm allows the readings' direction a
    /// disturbance of as many times calm as the gravity estimate lies `CalmAngleDeg`s
    /// inside the proposed orientation's sector, times cos θ (30° inside it, upright:
    /// three times calm; a direction error moves φ 1/cos θ as far), in the whole free
    /// zone (above `CalmElevationDeg` too). A device picked up and set into a pose is
    /// shaken by the hand for half a second after it got there, its readings 10–30° about
    /// the pose: an error of that size cannot carry an estimate that deep inside the
    /// sector out of it, and waiting for the shaking to end cost those poses 250–550 ms.
    /// Only the direction is excused: the readings' length (linear acceleration) still
    /// needs calm, and the readings' plain mean must have stopped turning
    /// (`PickUpTurnDegS`; the estimate's elevation, either way, slower than
    /// `FlatwardRateDegS`): a device still turning is on its way, not placed (a half turn
    /// passing an orientation, a phone rolled over its edge that pauses edge-on). A device
    /// moved about without a pause (a figure-eight, a swinging arm, a walk) is no pick-up;
    /// with a gyroscope integrated there is no allowance, the gyroscope telling a hand's
    /// shaking from a turn itself (`GyroCalmAngleDeg`). `PickUpMs` 0 turns it off.
    public var pickUpRestMs: Double = 1000
    public var pickUpMs: Double = 4000

    /// `PickUpJoltG`: readings this far from 1 g (a fraction of it, averaged over
    /// `LengthFilterMs`) end a pick-up: a stride's landing says the device is carried, not
    /// being placed. A run begun from standing still is no pick-up: in its quiet moments
    /// between strides the few readings near 1 g are the arm's pull as much as gravity.
    public var pickUpJoltG: Double = 0.75

    /// `LengthFilterMs`: time constant of the average of the readings' length error that
    /// the pick-up's gates read (its jolt, and its calm length). Linear acceleration that
    /// carries a device lasts tens of ms and more (a stride's landing, a bounce, a shove);
    /// a knock, or the hand stopping the device in its pose, is one or two readings of
    /// 10–20 ms, seen at 100 Hz and missed at 10. Averaged away, it no longer ends a
    /// pick-up or holds its calm (it had cost those poses 40–150 ms); a bounce at a few
    /// hertz is hardly touched. A reading of more force than the average counts for at
    /// most this long, however long since the one before (a sparse sensor's knock is an
    /// instant too); one of less, for its whole interval. 0 reads each reading alone.
    public var lengthFilterMs: Double = 25

    /// `PickUpTurnDegS`: while the readings' plain mean turns faster than this (its lag
    /// behind its average over `FlatwardFilterMs`, as the toward-flat rule measures the
    /// elevation's), and until that is forgotten as any disturbance, a pick-up is allowed
    /// no shaking: a half turn in the screen's plane at 180°/s passes the orientation in
    /// between. 160°/s keeps a ninth of margin below that turn, in the middle of the
    /// plateau of 150–250°/s; lower (140–145°/s), the gate reads the mean still catching
    /// up with a hand that has stopped (it lags by its filter's time and then closes at
    /// the hand's last speed) as turning, and holds placed poses longer.
    public var pickUpTurnDegS: Double = 160

    /// `PickUpGateToleranceMs`: the pick-up's gates (the plain mean no longer turning, the
    /// elevation no longer sweeping, the length calm) open when a decaying peak falls to its
    /// limit, a time worked out from the last reading. A reading stands for the interval
    /// around it: the engine dates a change half an interval before the reading that first
    /// shows it (`EngineMath.firstSeen`), and, the same way, a gate that opens less than half
    /// an interval after a reading counts as open at it, up to this many ms. More would be a
    /// guess at the hand's motion between readings (a 10 Hz poll's 50 ms). At 25 Hz two
    /// calibration poses whose gates opened 1 and 11 ms after a reading waited a whole
    /// interval more (25 Hz p95 230 → 193 ms); nothing else on the recordings, their
    /// variants or the synthetic sets changed. 0: a gate opens only at its time.
    public var pickUpGateToleranceMs: Double = 20

    /// `StrideMs`: how long the stride estimate must propose another orientation before it
    /// is committed: under sustained linear acceleration (a run), which never lets the
    /// device be calm, this is the only evidence. 0 turns the rule off.
    public var strideMs: Double = 1000

    /// `MaxElevationDeg`: beyond this elevation of the screen normal the device is flat
    /// and keeps its orientation.
    public var maxElevationDeg: Double = 65

    /// `CalmElevationDeg`: the calm and stride rules commit only while the screen normal is
    /// less than this far above the horizon: near flat, φ is ill-conditioned and a hand's
    /// wobble swings it across a boundary; only a rest, whose mean is gravity itself,
    /// decides between this and `MaxElevationDeg` (a reading posture leaned back 60°).
    public var calmElevationDeg: Double = 50

    /// `RestElevationDeg`: above this elevation a rest, too, must stand `EdgeSettleMs`
    /// before it leaves the current orientation, as at the edge. φ moves 1/cos θ as far
    /// as the direction of gravity: above 60° twice as far and more, so a rest's readings
    /// that agree within `RestAngleDeg` still spread 10–12° in φ, and a hand that texts
    /// at 62–64° pauses for 100 ms in a direction that reads as a turn. 60° is the
    /// steepest reading posture at which an orientation is still meant (a phone leaned
    /// back 60° and turned there is followed after `RestMs`); at 50° those turns waited
    /// 250 ms and more for a rest that long. With no orientation yet, a rest decides at
    /// once. 90 turns the rule off.
    public var restElevationDeg: Double = 60

    /// `MinElevationDeg`: below this elevation (the screen toward the floor: a phone held
    /// overhead, lying in bed) the device keeps its orientation, as Android's overhead rule.
    public var minElevationDeg: Double = -35

    /// `FlatExitMs`: how long the estimate must have been out of the flat and overhead
    /// zones before calm commits a proposal (a bump lifts an edge for a moment).
    public var flatExitMs: Double = 250

    /// `FlatwardRateDegS`, `FlatwardFilterMs`: while the screen turns toward the sky or the
    /// floor faster than `FlatwardRateDegS` (measured as the elevation's lag behind its
    /// average over `FlatwardFilterMs`), and until that is forgotten as any disturbance
    /// (`DisturbanceDecayMs`), calm commits nothing: the device is on its way to flat, where
    /// the orientation is kept, not held where it passes (a figure-eight in the air, a
    /// phone flipped over, slowing edge-on). A pick-up turns toward the vertical and is not
    /// held back. 65°/s is Android's swing rule (20° within 300 ms); 0 turns it off.
    public var flatwardRateDegS: Double = 65
    public var flatwardFilterMs: Double = 150

    /// `TiltHysteresisDeg`: how far past a tilt threshold (20° or 70°) the elevation must
    /// go before the tilt changes.
    public var tiltHysteresisDeg: Double = 2

    /// `TiltSettleMs`: how long a new tilt must be proposed before calm commits it.
    public var tiltSettleMs: Double = 200

    /// `SparseReadingMs`: readings further apart than this are sparse (a 10 Hz poll): a
    /// stride's jolts fall between them, and a few that look calm prove no calm, so a
    /// tilt that calm would commit waits until the stride estimate reads it too, or until
    /// the readings have been calm for as long as that estimate averages
    /// (`StrideFilterMs`: a walk with the phone held in front).
    public var sparseReadingMs: Double = 50

    /// `TiltDisturbanceLimit`: the disturbance (in multiples of calm) above which no tilt
    /// change is committed, and after the last reading above which a tilt must stand
    /// `TiltSettleMs` (so the tilt filter holds calm readings only): a knock, not a
    /// stride (a run's readings are 1.5–2 g long, 2–4 times calm).
    public var tiltDisturbanceLimit: Double = 6

    /// `MaxIntervalMs`: the longest interval between two readings that counts as time
    /// (a gap, a suspend, counts as this much), and the longest a sensor may take to
    /// send before it counts as silent.
    public var maxIntervalMs: Double = 150

    /// `StandardGravity`: 1 g in m/s², what a correctly scaled sensor reads at rest. The
    /// engine learns the sensor's own 1 g; this is only what it is compared with to tell
    /// that the scale looks wrong.
    public var standardGravity: Double = 9.80665

    public init() {}

    /// The documented defaults.
    public static let `default` = EngineTunables()

    /// One configuration-file key: where it is stored and what it may hold.
    struct Entry: Sendable {
        var key: String
        var path: WritableKeyPath<EngineTunables, Double> & Sendable
        var unit: String
        var min: Double
        var max: Double
        var maxInclusive = true
        var summary: String

        var rangeText: String {
            let lo = formatNumber(min)
            if max == .infinity { return ">= \(lo)" }
            return maxInclusive ? "\(lo) to \(formatNumber(max))" : "\(lo) to below \(formatNumber(max))"
        }
    }

    /// Every tunable, in documentation order.
    static let entries: [Entry] = [
        Entry(key: "GravityFilterMs", path: \.gravityFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the low-pass filter that estimates where gravity points"),
        Entry(key: "AccelerationToleranceG", path: \.accelerationToleranceG, unit: "g", min: 0.01, max: 10,
              summary: "length error (fraction of 1 g) at which a reading counts half in the gravity filter; a rest farther from 1 g is not gravity"),
        Entry(key: "CalmAngleDeg", path: \.calmAngleDeg, unit: "degrees", min: 0.1, max: 90,
              summary: "angle between a reading and the gravity estimate that is as disturbed as calm allows"),
        Entry(key: "AccelerationGateG", path: \.accelerationGateG, unit: "g", min: 0.01, max: 100,
              summary: "length error (fraction of 1 g) of a reading that is as disturbed as calm allows"),
        Entry(key: "DisturbanceDecayMs", path: \.disturbanceDecayMs, unit: "ms", min: 0, max: 60_000,
              summary: "time constant over which a disturbance is forgotten (k times calm holds for this times ln k)"),
        Entry(key: "GyroDisturbanceDecayMs", path: \.gyroDisturbanceDecayMs, unit: "ms", min: 0, max: 60_000,
              summary: "the same while a gyroscope is integrated: it reads the turning at every reading"),
        Entry(key: "GravityShareMs", path: \.gravityShareMs, unit: "ms", min: 1, max: 10_000,
              summary: "time over which the share of readings at 1 g (CalmGravityShare) is measured"),
        Entry(key: "CalmGravityShare", path: \.calmGravityShare, unit: "fraction", min: 0, max: 1,
              summary: "the least share of recent readings at 1 g with which calm commits an orientation (0: off)"),
        Entry(key: "TiltDisturbanceDecayMs", path: \.tiltDisturbanceDecayMs, unit: "ms", min: 0, max: 60_000,
              summary: "time constant over which a disturbance is forgotten for tilt's calm"),
        Entry(key: "TiltFilterMs", path: \.tiltFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the plain average of the readings that tilt is judged on"),
        Entry(key: "RestAngleDeg", path: \.restAngleDeg, unit: "degrees", min: 0.1, max: 90,
              summary: "readings within this angle of each other (and RestBandG in length) for RestMs are a rest"),
        Entry(key: "RestBandG", path: \.restBandG, unit: "g", min: 0.001, max: 1,
              summary: "how far a rest's readings may differ in length (fraction of 1 g)"),
        Entry(key: "RestGravityG", path: \.restGravityG, unit: "g", min: 0.001, max: 1,
              summary: "how near 1 g a rest's length must be for its mean to be gravity"),
        Entry(key: "RestMs", path: \.restMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long readings must stay unchanged to be a rest, which commits at once (0: off)"),
        Entry(key: "RelearnMs", path: \.relearnMs, unit: "ms", min: 0, max: 600_000,
              summary: "a rest this long at another length becomes the sensor's new 1 g"),
        Entry(key: "StrideFilterMs", path: \.strideFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the slow estimate over which a run's forces average out"),
        Entry(key: "FusionCorrectionMs", path: \.fusionCorrectionMs, unit: "ms", min: 0, max: 60_000,
              summary: "time constant over which the up vector the gyroscope turns is pulled toward a calm accelerometer reading"),
        Entry(key: "FusionTrustDecayMs", path: \.fusionTrustDecayMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long linear acceleration keeps lowering the accelerometer's pull on the gyroscope's up vector"),
        Entry(key: "FusionSlowestMs", path: \.fusionSlowestMs, unit: "ms", min: 0, max: 600_000,
              summary: "however much linear acceleration there is, the up vector's pull toward the readings is never slower than this (0: no limit)"),
        Entry(key: "FusionPullMaxG", path: \.fusionPullMaxG, unit: "g", min: 1, max: 1000,
              summary: "the up vector is pulled toward each reading in proportion to its length, up to this length"),
        Entry(key: "GyroCalmRateDegS", path: \.gyroCalmRateDegS, unit: "degrees/s", min: 0.1, max: 1000,
              summary: "with a gyroscope, a device turning faster than this is not calm"),
        Entry(key: "GyroCalmAngleDeg", path: \.gyroCalmAngleDeg, unit: "degrees", min: 0.1, max: 90,
              summary: "with a gyroscope, which reads the turning itself, the angle between a reading and the gravity estimate that is as disturbed as calm allows (CalmAngleDeg without one)"),
        Entry(key: "GyroBiasLearnMs", path: \.gyroBiasLearnMs, unit: "ms", min: 0, max: 600_000,
              summary: "time constant over which the gyroscope's bias is learned at rest (0: not learned)"),
        Entry(key: "GyroBiasRateDegS", path: \.gyroBiasRateDegS, unit: "degrees/s", min: 0, max: 1000,
              summary: "at rest, a gyroscope reading further than this from its learned bias is a turn, not bias"),
        Entry(key: "GyroBiasLongRestMs", path: \.gyroBiasLongRestMs, unit: "ms", min: 0, max: 600_000,
              summary: "a rest this long teaches the gyroscope's bias whatever it reads (0: never)"),
        Entry(key: "GyroTimeoutMs", path: \.gyroTimeoutMs, unit: "ms", min: 1, max: 60_000,
              summary: "a gyroscope silent this long is not fused until it sends again"),
        Entry(key: "GyroStuckMs", path: \.gyroStuckMs, unit: "ms", min: 1, max: 600_000,
              summary: "a gyroscope repeating one reading, or reading only saturated or non-finite ones, this long is not used"),
        Entry(key: "GyroMaxRateDegS", path: \.gyroMaxRateDegS, unit: "degrees/s", min: 1, max: 100_000,
              summary: "gyroscope readings beyond this are saturated and ignored"),
        Entry(key: "GyroIntegrateMaxMs", path: \.gyroIntegrateMaxMs, unit: "ms", min: 0, max: 1000,
              summary: "a gyroscope read at least this often follows every turn: calm reads its rate, and tilt and the stride rule read its attitude while it barely turns"),
        Entry(key: "GyroSmoothRatio", path: \.gyroSmoothRatio, unit: "times the rate", min: 0, max: 10,
              summary: "tilt and the stride rule read the gyroscope's attitude while its readings change by at most this part of the rate (0: only while it barely turns, read at least every GyroIntegrateMaxMs)"),
        Entry(key: "GyroSmoothWindowMs", path: \.gyroSmoothWindowMs, unit: "ms", min: 1, max: 60_000,
              summary: "over how long the change between a gyroscope's readings and its rate are averaged for GyroSmoothRatio"),
        Entry(key: "AttitudeStrideFilterMs", path: \.attitudeStrideFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the averages of the gyroscope's attitude and of the readings that the stride rule reads (with a gyroscope)"),
        Entry(key: "GyroDisagreeDeg", path: \.gyroDisagreeDeg, unit: "degrees", min: 1, max: 180,
              summary: "a fused up vector this far from calm accelerometer readings for GyroDisagreeMs: the gyroscope is not used"),
        Entry(key: "GyroDisagreeMs", path: \.gyroDisagreeMs, unit: "ms", min: 1, max: 600_000,
              summary: "how long the disagreement of GyroDisagreeDeg must last"),
        Entry(key: "ConfirmReadings", path: \.confirmReadings, unit: "readings", min: 1, max: 100,
              summary: "how many readings a change needs (a silent sensor's last reading counts once more)"),
        Entry(key: "OrientationHysteresisDeg", path: \.orientationHysteresisDeg, unit: "degrees", min: 0, max: 45,
              maxInclusive: false,
              summary: "how far past the 45 degree boundary gravity must go before another orientation is proposed"),
        Entry(key: "OrientationSettleMs", path: \.orientationSettleMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long a proposal must stand before calm commits it"),
        Entry(key: "EdgeDeg", path: \.edgeDeg, unit: "degrees", min: 0, max: 90,
              summary: "a proposal less than this past the leave angle must stand EdgeSettleMs before it is committed (0: off)"),
        Entry(key: "EdgeSettleMs", path: \.edgeSettleMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long a proposal only just past the leave angle (EdgeDeg) must stand, at rest or calm"),
        Entry(key: "PickUpRestMs", path: \.pickUpRestMs, unit: "ms", min: 0, max: 600_000,
              summary: "a rest at 1 g at least this long makes the movement after it a pick-up (PickUpMs)"),
        Entry(key: "PickUpMs", path: \.pickUpMs, unit: "ms", min: 0, max: 600_000,
              summary: "for this long after a rest of PickUpRestMs, calm allows the readings' direction as many times calm as the estimate lies CalmAngleDegs inside the proposed orientation (0: off)"),
        Entry(key: "PickUpJoltG", path: \.pickUpJoltG, unit: "g", min: 0, max: 100,
              summary: "readings this far from 1 g, averaged over LengthFilterMs (a stride's landing), end a pick-up"),
        Entry(key: "LengthFilterMs", path: \.lengthFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the average of the readings' length error the pick-up reads: a knock of one or two readings is averaged away"),
        Entry(key: "PickUpTurnDegS", path: \.pickUpTurnDegS, unit: "degrees/s", min: 0, max: 100_000,
              summary: "while the readings' plain mean turns faster than this, a pick-up is allowed no shaking (0: no such limit)"),
        Entry(key: "PickUpGateToleranceMs", path: \.pickUpGateToleranceMs, unit: "ms", min: 0, max: 1000,
              summary: "a pick-up's gate that opens less than half a reading interval after a reading counts as open at it, up to this much (0: only at its time)"),
        Entry(key: "StrideMs", path: \.strideMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long the stride estimate must propose another orientation before it is committed (0: off)"),
        Entry(key: "MaxElevationDeg", path: \.maxElevationDeg, unit: "degrees", min: 1, max: 90,
              summary: "beyond this elevation of the screen normal the device is flat and keeps its orientation"),
        Entry(key: "CalmElevationDeg", path: \.calmElevationDeg, unit: "degrees", min: 1, max: 90,
              summary: "above this elevation only a rest commits an orientation change (calm and stride rules do not)"),
        Entry(key: "RestElevationDeg", path: \.restElevationDeg, unit: "degrees", min: 1, max: 90,
              summary: "above this elevation a rest must stand EdgeSettleMs before it leaves the orientation, as at the edge (90: off)"),
        Entry(key: "MinElevationDeg", path: \.minElevationDeg, unit: "degrees", min: -90, max: 0,
              summary: "below this elevation (screen toward the floor, held overhead) the device keeps its orientation"),
        Entry(key: "FlatExitMs", path: \.flatExitMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long the device must be out of the flat zone before calm commits a proposal"),
        Entry(key: "FlatwardRateDegS", path: \.flatwardRateDegS, unit: "degrees/s", min: 0, max: 10_000,
              summary: "while the screen turns toward the sky or the floor faster than this, calm commits nothing (0: off)"),
        Entry(key: "FlatwardFilterMs", path: \.flatwardFilterMs, unit: "ms", min: 1, max: 10_000,
              summary: "time constant of the elevation's average against which FlatwardRateDegS is measured"),
        Entry(key: "TiltHysteresisDeg", path: \.tiltHysteresisDeg, unit: "degrees", min: 0, max: 20, maxInclusive: false,
              summary: "how far past a tilt threshold (20 or 70 degrees) the elevation must go before the tilt changes"),
        Entry(key: "TiltSettleMs", path: \.tiltSettleMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long a new tilt must be proposed before calm commits it"),
        Entry(key: "SparseReadingMs", path: \.sparseReadingMs, unit: "ms", min: 1, max: 10_000,
              summary: "readings further apart are sparse: a tilt calm would commit waits for the stride estimate to agree or for StrideFilterMs of calm"),
        Entry(key: "TiltDisturbanceLimit", path: \.tiltDisturbanceLimit, unit: "times calm", min: 1, max: 1000,
              summary: "disturbance above which no tilt change is committed, and after which a tilt must stand TiltSettleMs anew (a knock, not a stride)"),
        Entry(key: "MaxIntervalMs", path: \.maxIntervalMs, unit: "ms", min: 1, max: 60_000,
              summary: "longest reading interval counted as time, and longest a sensor may take before it counts as silent"),
        Entry(key: "StandardGravity", path: \.standardGravity, unit: "m/s^2", min: 1, max: 100,
              summary: "1 g in m/s^2; a learned gravity far from it is logged as a wrong sensor scale"),
    ]

    static func entry(for key: String) -> Entry? { entries.first { $0.key == key } }

    /// All configuration-file keys, in documentation order.
    public static var keys: [String] { entries.map(\.key) }

    /// A one-line description of a key with its unit, allowed range and default; nil for
    /// an unknown key.
    public static func documentation(forKey key: String) -> String? {
        guard let e = entry(for: key) else { return nil }
        return "\(key) (\(e.unit), \(e.rangeText), default \(formatNumber(Self.default[keyPath: e.path]))): \(e.summary)"
    }

    /// The key that `key` most likely misspells: the nearest by edit distance, ignoring
    /// case, if at most a third of its letters (and at least two) differ; nil if none is.
    public static func nearestKey(to key: String) -> String? {
        let typed = Array(key.lowercased())
        let scored = keys.map { ($0, editDistance(typed, Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, best.0.count / 3) ? best.0 : nil
    }

    /// Levenshtein distance: insertions, deletions and substitutions, one each.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return a.count + b.count }
        // One row of the table at a time: row i holds the distances from a's first i.
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The current value of a tunable by its key; nil for an unknown key.
    public func value(forKey key: String) -> Double? {
        Self.entry(for: key).map { self[keyPath: $0.path] }
    }

    /// Set one tunable by its configuration-file key (e.g. `"OrientationSettleMs"`).
    ///
    /// The value is parsed without regard to locale (a `.` decimal point, optional
    /// exponent; surrounding spaces and tabs are ignored). Throws a ``TunableError``
    /// naming the key and the value for an unknown key, a value that is not a number, a
    /// non-finite number, or a number outside the key's range.
    public mutating func set(key: String, value: String) throws(TunableError) {
        guard let e = Self.entry(for: key) else {
            // The whole list (58 keys) would drown the line; a near miss names its key.
            throw TunableError(key: key, value: value,
                               reason: "unknown key" + (Self.nearestKey(to: key).map { " (did you mean \($0)?)" } ?? ""))
        }
        let text = value.trimmingWhitespace()
        guard !text.isEmpty else {
            throw TunableError(key: key, value: value, reason: "empty value, expected a number in \(e.unit)")
        }
        guard Self.isPlainDecimal(text), let v = Double(text) else {
            throw TunableError(key: key, value: value, reason: "not a decimal number")
        }
        guard v.isFinite else {
            throw TunableError(key: key, value: value, reason: "not a finite number")
        }
        guard v >= e.min, e.maxInclusive ? v <= e.max : v < e.max else {
            throw TunableError(key: key, value: value, reason: "out of range, expected \(e.rangeText)")
        }
        self[keyPath: e.path] = v
    }

    /// Digits, one optional sign, one optional '.', one optional exponent. Rejects the
    /// words Double(String) also accepts ("nan", "inf", "infinity") and hex floats.
    static func isPlainDecimal(_ s: Substring) -> Bool {
        var digits = 0
        var seenDot = false, seenExp = false
        var prev: UInt8 = 0
        for (i, c) in s.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if !(i == 0 || prev == UInt8(ascii: "e") || prev == UInt8(ascii: "E")) { return false }
            case UInt8(ascii: "."):
                if seenDot || seenExp { return false }
                seenDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if seenExp || digits == 0 { return false }
                seenExp = true
            default:
                return false
            }
            prev = c
        }
        return digits > 0
    }
}

/// A tunable that could not be set: unknown key, or a bad value.
public struct TunableError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key as given.
    public var key: String
    /// The value as given.
    public var value: String
    /// Why it was rejected.
    public var reason: String

    public init(key: String, value: String, reason: String) {
        self.key = key
        self.value = value
        self.reason = reason
    }

    public var description: String {
        "invalid tunable \(key) = '\(value)': \(reason)"
    }
}

/// Shortest sensible decimal rendering of a number for messages ("40", "0.2", "9.80665").
func formatNumber(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return String(v)
}
