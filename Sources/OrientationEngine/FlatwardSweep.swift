/// How fast the screen turns toward the sky or the floor: a device on its way to flat.
///
/// A device tumbled in the air (a figure-eight, a phone flipped over from face-down to
/// face-up) passes through an orientation edge-on, and may slow down there enough to look
/// calm; but it is not held there, and where it is going the orientation is kept anyway.
/// Android's rule is the same thought: the elevation rising 20° within 300 ms holds every
/// proposal. Here the rate is measured as the elevation's (sine's) lag behind its own
/// average over `FlatwardFilterMs` (a ramp of rate v lags by v·τ), signed so that only
/// movement away from the vertical counts: a device picked up from flat turns toward the
/// vertical and is not held back. The level, in multiples of `FlatwardRateDegS`, is kept
/// as a peak that decays like any disturbance (`DisturbanceDecayMs`), so calm waits until
/// it has fallen. The judge keeps one on the readings' estimate and, where a gyroscope
/// turns an attitude, one on the attitude, which sees a tumble without the estimate's lag.
struct FlatwardSweep: Sendable {
    private var gain: ExponentialGain
    /// The lag that is as fast as calm allows: `FlatwardRateDegS` (in radians) times the
    /// time constant. Measured on the elevation's sine, divided by its cosine (the sine
    /// moves cos θ times as fast as the angle): no arc sine per reading.
    private let limit: Double
    /// Whether turning toward the vertical counts too (``init(tunables:bothWays:)``).
    private let bothWays: Bool
    private var average = 0.0
    private var started = false
    /// The last reading's own level (held, a reading stands for itself).
    private(set) var last = 0.0
    private(set) var peak: DecayingPeak

    /// `bothWays`: any sweep of the elevation counts, toward the vertical too: a device
    /// still sweeping is not yet where it is going (the pick-up allowance, ``Judge``).
    init(tunables t: EngineTunables, bothWays: Bool = false) {
        self.bothWays = bothWays
        gain = ExponentialGain(timeConstantMs: t.flatwardFilterMs)
        limit = t.flatwardRateDegS * EngineMath.radiansPerDegree * t.flatwardFilterMs / 1000
        peak = DecayingPeak(timeConstantMs: t.disturbanceDecayMs)
    }

    /// Whether the rule is on (`FlatwardRateDegS` > 0).
    var isOn: Bool { limit > 0 }

    /// Starts the average afresh at the next elevation, its source not being read
    /// meanwhile (a gyroscope's attitude that is not integrated, or a gyroscope given up):
    /// the last reading's level no longer stands, and a peak already seen still decays.
    mutating func restart() {
        started = false
        last = 0
    }

    /// Holds the average at `s`, the elevation of a device at rest (which does not sweep):
    /// cheaper than following it, and the same.
    mutating func hold(sinElevation s: Double) {
        started = isOn
        average = s
        last = 0
    }

    /// Takes the elevation (its sine) of a reading at `t`, `dtMs` after the one before.
    mutating func observe(sinElevation s: Double, at t: Double, dtMs: Double) {
        guard isOn else { return }
        guard started else {
            started = true
            average = s
            return
        }
        average += (s - average) * gain(dtMs: dtMs)
        // Away from the vertical: up while the screen faces up, down while it faces down.
        let away = bothWays ? abs(s - average) : s < 0 ? average - s : s - average
        // The sine's lag over the cosine: the angle's lag, to first order. (A lag below a
        // tenth of the limit is below it at any elevation: no square root for it.)
        last = away > 0.1 * limit ? away / (limit * max(0.1, (1 - s * s).squareRoot())) : 0
        // Only a reading beyond the limit can hold calm: one within it leaves the peak to
        // decay as it would (its time to fall to the limit is then already past).
        if last > 1 { peak.observe(last, at: t) }
    }

    /// When the sweep is (or was) over for calm: its peak fallen to the limit; +∞ while the
    /// last reading itself sweeps.
    var calmFromMs: Double {
        guard isOn else { return -.infinity }
        return last <= 1 ? peak.time(fallingTo: 1) : .infinity
    }
}
