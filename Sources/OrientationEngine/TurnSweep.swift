/// How fast an estimate of gravity (the pick-up's: the readings' plain mean) turns,
/// whichever way: in the screen's plane, or toward and away from flat.
///
/// Measured as the estimate's lag behind its own average over `FlatwardFilterMs` (a steady
/// turn at rate ω lags by about ω·τ), in multiples of `PickUpTurnDegS`, and kept as a
/// peak that decays like any disturbance (`DisturbanceDecayMs`). The pick-up allowance
/// (``Judge``) needs it calm: a device that has stopped turning and is shaken in its new
/// pose is being placed there; one still turning steadily is on its way (a half turn
/// passing through an orientation, a phone rolled over its edge toward face-down).
struct TurnSweep: Sendable {
    private var average: LowPass
    /// The lag (as a chord between unit vectors) of a turn as fast as calm allows.
    private let limit: Double
    /// The last reading's own level (held, a reading stands for itself).
    private(set) var last = 0.0
    private(set) var peak: DecayingPeak

    init(tunables t: EngineTunables) {
        average = LowPass(timeConstantMs: t.flatwardFilterMs)
        limit = t.pickUpTurnDegS * EngineMath.radiansPerDegree * t.flatwardFilterMs / 1000
        peak = DecayingPeak(timeConstantMs: t.disturbanceDecayMs)
    }

    /// Whether the measure is on (`PickUpTurnDegS` > 0).
    var isOn: Bool { limit > 0 }

    /// Starts afresh at the next estimate, not having followed it meanwhile: a peak
    /// already seen still decays.
    mutating func restart() {
        average.reset(to: .zero)
        last = 0
    }

    /// Holds the average at `up`, the estimate of a device at rest (which does not turn):
    /// cheaper than following it, and the same.
    mutating func hold(_ up: Vector3) {
        average.reset(to: up)
        last = 0
    }

    /// Takes the estimate (unit) at `t`, `dtMs` after the one before.
    mutating func observe(_ up: Vector3, at t: Double, dtMs: Double) {
        guard isOn else { return }
        guard average.value != .zero else {
            average.reset(to: up)
            return
        }
        average.update(up, dtMs: dtMs)
        // The lag behind the average (not made unit again: it shortens by the square of
        // the lag, a second-order difference). Below a tenth of the limit it is below it at
        // any rate: no square root for the readings of a device that is not turning.
        let lag2 = (up - average.value).lengthSquared
        last = lag2 > 0.01 * limit * limit ? lag2.squareRoot() / limit : 0
        // Only a reading beyond the limit holds: one within it leaves the peak to decay.
        if last > 1 { peak.observe(last, at: t) }
    }

    /// When the turning is (or was) over: its peak fallen to the limit; +∞ while the last
    /// reading itself turns that fast.
    var calmFromMs: Double {
        guard isOn else { return -.infinity }
        return last <= 1 ? peak.time(fallingTo: 1) : .infinity
    }
}
