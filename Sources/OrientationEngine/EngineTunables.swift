/// The engine's tunable constants.
///
/// All times are in milliseconds of sample time (never sample counts), so the engine
/// behaves the same from 10 to 200 Hz, with jittered timestamps and with gaps. Angles are
/// in degrees; accelerations are fractions of the sensor's own 1 g (learned, see
/// `GravityMagnitude`), so they hold at any sensor scale. Every tunable can be set from the
/// configuration file, section `[Engine]`, by its key (the table ``entries``: key,
/// property, unit, range and summary, from which parsing, lookup and documentation come).
public struct EngineTunables: Sendable, Equatable {
    /// `GravityFilterMs`: time constant of the low-pass filter that estimates the gravity
    /// vector. Larger is smoother (tremor, walking, noise) but slower to follow a rotation.
    public var gravityFilterMs: Double = 40

    /// `AccelerationToleranceG`: how far (as a fraction of 1 g) a sample's magnitude may
    /// differ from 1 g before it is trusted less. A sample whose magnitude differs by this
    /// much counts half as long in the gravity filter; at twice this, a fifth; one that
    /// differs by more is no part of a rest (`RestAngleDeg`). Linear acceleration (shakes,
    /// taps, bumps, lever-arm forces, a swinging arm's pull) is what makes |a| differ from 1 g.
    public var accelerationToleranceG: Double = 0.2

    /// `ShockThresholdG`: a sample that differs from the current gravity estimate by more
    /// than this (in g; the apparent linear acceleration) is a shock: a shake, tap, knock,
    /// bump, or the hand's lever-arm forces in a fast turn. No orientation or tilt change
    /// is reported until `ShockHoldMs` after the last shock. The distance is rescaled for
    /// the sample interval, so that a steady turn measures the same at every rate.
    public var shockThresholdG: Double = 0.6

    /// `ShockHoldMs`: how long after the last shock no change is reported. A few gravity
    /// filter time constants, so the filter has forgotten the shock by then.
    public var shockHoldMs: Double = 150

    /// `MotionFilterMs`: time constant of a second, unweighted low-pass estimate that judges
    /// motion: linear acceleration and steadiness are measured on it, not on single samples,
    /// so that sensor noise and tremor do not count.
    public var motionFilterMs: Double = 60

    /// `AccelerationGateG`: when the motion estimate's length differs from 1 g by more than
    /// this, the device is under linear acceleration (the strides of a run, a swing, a
    /// pocket): no change is reported until `AccelerationHoldMs` after it ends.
    public var accelerationGateG: Double = 0.3

    /// `ScatterDeg`: when the samples scatter in direction around the motion estimate by
    /// more than this (RMS), sideways forces are turning the apparent gravity: held off
    /// as linear acceleration too. A bounce along gravity (walking) does not scatter.
    public var scatterDeg: Double = 25

    /// `AccelerationHoldMs`: how long after linear acceleration ends no change is reported.
    public var accelerationHoldMs: Double = 100

    /// `SteadyAngleDeg`: the gravity estimate's direction counts as steady while it stays
    /// within this angle of where it was when it last moved.
    public var steadyAngleDeg: Double = 20

    /// `SteadyMs`: how long the direction must have been steady before a new orientation is
    /// reported. A rotation that is meant ends in a steady hold; an excursion passes
    /// through an orientation while the hand still moves.
    public var steadyMs: Double = 100

    /// `RestAngleDeg`: the device is *at rest* once every raw sample for `SteadyMs` has
    /// stayed within this angle of the first of them, each near 1 g (within
    /// `AccelerationToleranceG`: the samples the gravity filter trusts at least half). At
    /// rest the mean of those samples is the gravity estimate and a change completes at once:
    /// the filters' lag, the shock and acceleration holds and the settle times are all
    /// there to wait for a rest that has now been seen. 0 turns the rest path off.
    public var restAngleDeg: Double = 5

    /// `OrientationHysteresisDeg`: how far past the 45° boundary between two orientations
    /// the gravity direction must go before a change is considered. Keeps a device held
    /// near 45° (with wobble, gain and offset errors) from flickering.
    public var orientationHysteresisDeg: Double = 15

    /// `OrientationSettleMs`: how long a new orientation must be proposed continuously
    /// before it is reported. Rejects shakes, taps and knocks, which are over quickly.
    public var orientationSettleMs: Double = 100

    /// `MaxElevationDeg`: orientation is only decided while the screen normal is less than
    /// this far above or below the horizon. Beyond it the device counts as lying flat and
    /// keeps its last orientation.
    public var maxElevationDeg: Double = 70

    /// `MinElevationDeg`: orientation is only decided while the screen normal is above this
    /// elevation. Below it the screen faces the floor (a phone held overhead, lying in
    /// bed): the device keeps its orientation, as with Android's "overhead" rule.
    public var minElevationDeg: Double = -35

    /// `FlatExitMs`: after lying flat (or near flat, e.g. during a table bump), the device must
    /// have been out of the flat zone for this long before a new orientation is reported.
    /// A pick-up is a long, steady motion; a bump that briefly lifts an edge is not.
    public var flatExitMs: Double = 250

    /// `TiltHysteresisDeg`: the elevation must go this far past a tilt threshold (20° or
    /// 70°) before the tilt changes.
    public var tiltHysteresisDeg: Double = 2

    /// `TiltFilterMs`: time constant of a slower low-pass of the gravity estimate from
    /// which the tilt is judged, so that the periodic forces of a stride (walking,
    /// running, a leg's swing with the phone in a pocket) average out rather than tip the
    /// elevation across 20° for a moment. Because of that averaging, tilt is held off by
    /// shocks only, not by linear acceleration: a runner who tilts the phone sees it.
    public var tiltFilterMs: Double = 100

    /// `TiltSettleMs`: how long a new tilt must be proposed continuously before it is
    /// reported.
    public var tiltSettleMs: Double = 100

    /// `StrideFilterMs`: time constant of the *stride estimate*, a slow unweighted low-pass
    /// of the samples. Under sustained linear acceleration (running with the phone in the
    /// hand) the other estimates are rarely calm long enough to decide, but a run's forces
    /// average out over a stride or two while gravity does not: once this estimate has
    /// been steady and near 1 g for this long, and proposed a new orientation for as long,
    /// it decides. 0 turns it off.
    public var strideFilterMs: Double = 500

    /// `MaxIntervalMs`: the longest interval between two samples that counts toward the
    /// settle times. A longer gap (dropout, suspend) counts as this much.
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
              summary: "time constant of the gravity low-pass filter"),
        Entry(key: "AccelerationToleranceG", path: \.accelerationToleranceG, unit: "g", min: 0.01, max: 10,
              summary: "magnitude error (fraction of 1 g) at which a sample counts half in the gravity filter; beyond it, no part of a rest"),
        Entry(key: "ShockThresholdG", path: \.shockThresholdG, unit: "g", min: 0.01, max: 100,
              summary: "linear acceleration (sample minus gravity estimate, in g) above which a sample is a shock that holds off changes"),
        Entry(key: "ShockHoldMs", path: \.shockHoldMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long after the last shock no orientation or tilt change is reported"),
        Entry(key: "MotionFilterMs", path: \.motionFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the unweighted low-pass estimate on which motion is judged"),
        Entry(key: "AccelerationGateG", path: \.accelerationGateG, unit: "g", min: 0.01, max: 100,
              summary: "magnitude error (fraction of 1 g) of the motion estimate beyond which the device is under linear acceleration"),
        Entry(key: "ScatterDeg", path: \.scatterDeg, unit: "degrees", min: 0.1, max: 180,
              summary: "RMS scatter of sample directions around the motion estimate beyond which the device is under linear acceleration"),
        Entry(key: "AccelerationHoldMs", path: \.accelerationHoldMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long after linear acceleration ends no orientation or tilt change is reported"),
        Entry(key: "SteadyAngleDeg", path: \.steadyAngleDeg, unit: "degrees", min: 0.1, max: 90,
              summary: "how far the gravity direction may move and still count as steady"),
        Entry(key: "SteadyMs", path: \.steadyMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long the gravity direction must have been steady before the orientation changes"),
        Entry(key: "RestAngleDeg", path: \.restAngleDeg, unit: "degrees", min: 0, max: 90,
              summary: "raw samples within this angle of each other and near 1 g for SteadyMs are a rest: the change completes at once (0: off)"),
        Entry(key: "OrientationHysteresisDeg", path: \.orientationHysteresisDeg, unit: "degrees", min: 0, max: 45,
              maxInclusive: false,
              summary: "how far past the 45 degree boundary gravity must go before the orientation may change"),
        Entry(key: "OrientationSettleMs", path: \.orientationSettleMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long a new orientation must persist before it is reported"),
        Entry(key: "MaxElevationDeg", path: \.maxElevationDeg, unit: "degrees", min: 1, max: 90,
              summary: "beyond this elevation of the screen normal the device is flat and keeps its orientation"),
        Entry(key: "MinElevationDeg", path: \.minElevationDeg, unit: "degrees", min: -90, max: 0,
              summary: "below this elevation (screen toward the floor, held overhead) the device keeps its orientation"),
        Entry(key: "FlatExitMs", path: \.flatExitMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long the device must be out of the flat zone before a new orientation is reported"),
        Entry(key: "TiltHysteresisDeg", path: \.tiltHysteresisDeg, unit: "degrees", min: 0, max: 20, maxInclusive: false,
              summary: "how far past a tilt threshold (20 or 70 degrees) the elevation must go before the tilt changes"),
        Entry(key: "TiltFilterMs", path: \.tiltFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the slower low-pass of the gravity estimate that tilt is judged on"),
        Entry(key: "TiltSettleMs", path: \.tiltSettleMs, unit: "ms", min: 0, max: 60_000,
              summary: "how long a new tilt must persist before it is reported"),
        Entry(key: "StrideFilterMs", path: \.strideFilterMs, unit: "ms", min: 0, max: 10_000,
              summary: "time constant of the slow estimate that decides under sustained linear acceleration (running), once steady that long (0: off)"),
        Entry(key: "MaxIntervalMs", path: \.maxIntervalMs, unit: "ms", min: 1, max: 60_000,
              summary: "longest sample interval credited to the settle times (longer gaps count as this)"),
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
            throw TunableError(key: key, value: value,
                               reason: "unknown key (known keys: \(Self.keys.joined(separator: ", ")))")
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
