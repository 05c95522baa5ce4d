/// How long 1 g reads on this sensor.
///
/// Real drivers and firmware tables get the scale wrong by constant factors (milli-g
/// reported as m/s², a wrong range register: ×1000, ×0.001, ×2.6). Orientation comes
/// from the direction of gravity alone, but telling a shake or a stride from gravity
/// needs to know how long gravity is: every magnitude test of the engine is relative to
/// this value, so the engine decides the same at any scale.
///
/// The value is what the sensor reads at rest (``Rest``): each rest at about the current
/// value moves it toward the rest's length (over ``learnMs`` of rest, so that readings
/// that happen to agree for a moment cannot walk it away), and a reading that stays steady in direction and length for
/// `RelearnMs` at another length replaces it, whatever it was (a sensor whose scale
/// changed, or an estimate that started from a reading taken in motion). Until the
/// first rest it is `StandardGravity` when the scale looks plausible: the readings' mean
/// length over the last second or so within ``plausibleRatio`` of it. (Their mean
/// length, not the length of their mean: a device turning over and over, as in a
/// figure-eight, reads gravity in every direction, and the mean of those readings
/// shrinks toward nothing while each is 1 g long; a phone whirled in the air had a
/// second's mean of 0.06 g, and the sensor's scale was taken to be wrong.) A sensor whose
/// scale is that far off is judged against `StandardGravity` times the power of ten
/// nearest that ratio: the unit errors drivers make, which no motion can shift. (Its
/// mean reading's length, which stood in before, wandered by a third as a mis-scaled
/// phone was waved about, and two figure-eight turns were missed.) A shake, a stride, a
/// swing or a free fall is no rest, and never moves it.
struct GravityMagnitude: Sendable {
    /// Time constant of the readings' mean length that judges the scale until the first rest.
    static let unconfirmedMeanMs = 1000.0
    /// Rest time after which the value counts as confirmed (for the scale warning).
    static let confirmedAfterMs = 1000.0
    /// Time constant, in rest time, over which a rest near the value moves it.
    static let learnMs = 500.0
    /// How long a rest must last to teach anything: a pendulum at the end of its swing,
    /// or two readings at 10 Hz that happen to agree in the middle of a run, are still for
    /// a moment at a length that is not 1 g.
    static let learnAfterMs = 300.0

    /// The value (the samples' unit); 0 before the first sample.
    private(set) var value = 0.0
    /// Rest time that confirmed the value so far.
    private(set) var confirmedMs = 0.0

    /// Before the first rest, a mean length within this factor of `StandardGravity` is
    /// taken to be a right scale, and `StandardGravity` is used: a phone swung in a
    /// running hand reads up to 4 g on average over a second (a recorded run), and judged
    /// against that, every reading of the swing looks calm. The scale errors that real
    /// drivers make are unit errors, ×9.81 (g for m/s²) and powers of ten, all beyond it.
    /// (A smaller error, 26 g read as 2.6 g, is learned at the first rest.)
    static let plausibleRatio = 6.0

    /// The readings' mean length until the first rest, over `unconfirmedMeanMs`.
    private var meanLength = 0.0
    private var meanGain = ExponentialGain(timeConstantMs: unconfirmedMeanMs)
    private var learnGain = ExponentialGain(timeConstantMs: learnMs)
    private let standardGravity: Double

    init(standardGravity: Double) {
        self.standardGravity = standardGravity
    }

    /// Starts from a first reading.
    mutating func start(_ a: Vector3) {
        meanLength = a.length
        confirmedMs = 0
        standIn()
    }

    /// A reading, `dt` ms after the one before: moves the stand-in until the first rest.
    mutating func observe(_ a: Vector3, dtMs dt: Double) {
        guard confirmedMs == 0 else { return }
        meanLength += (a.length - meanLength) * meanGain(dtMs: dt)
        standIn()
    }

    private mutating func standIn() {
        guard meanLength > 0, meanLength.isFinite else { return }
        let ratio = meanLength / standardGravity
        if ratio < Self.plausibleRatio && ratio > 1 / Self.plausibleRatio {
            value = standardGravity
        } else if case let snapped = standardGravity * Self.nearestPowerOfTen(ratio), snapped.isNormal {
            value = snapped
        }
    }

    /// 10^k for the integer k nearest log10(`r`) (r > 0); 1 for a ratio that is not a
    /// positive finite number (the loops below would never end on an infinite one).
    static func nearestPowerOfTen(_ r: Double) -> Double {
        guard r > 0, r.isFinite else { return 1 }
        var r = r, p = 1.0
        while r >= 10.0.squareRoot() { r /= 10; p *= 10 }
        while r < 1 / 10.0.squareRoot() { r *= 10; p /= 10 }
        return p
    }

    /// A rest `restMs` long (already at least `RestMs`) whose mean reads `length`, seen
    /// again after `dt` ms: it confirms a value within `tolerance` (a fraction) and
    /// becomes the value; one farther away does so once it has lasted `relearnMs`.
    mutating func rest(length: Double, restMs: Double, dtMs dt: Double, tolerance: Double, relearnMs: Double) {
        guard length > 0, length.isFinite, restMs >= Self.learnAfterMs else { return }
        let near = abs(length / value - 1) <= tolerance
        if near {
            value += learnGain(dtMs: dt) * (length - value)
            confirmedMs += dt
        } else if restMs >= relearnMs {
            value = length
            confirmedMs = dt
        }
    }

    /// True once the value has been confirmed by about a second of rest.
    var isConfirmed: Bool { confirmedMs >= Self.confirmedAfterMs }
}
