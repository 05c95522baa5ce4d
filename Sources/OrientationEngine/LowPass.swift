/// A first-order low-pass filter of a vector over real time (``ExponentialGain``).
struct LowPass: Sendable {
    private var exponential: ExponentialGain
    private(set) var value = Vector3.zero

    /// Time constant τ in ms; 0 passes every sample through.
    var timeConstantMs: Double { exponential.timeConstantMs }

    init(timeConstantMs: Double) {
        exponential = ExponentialGain(timeConstantMs: timeConstantMs)
    }

    /// Starts over at `v`.
    mutating func reset(to v: Vector3) {
        value = v
    }

    /// The gain 1 − e^(−Δt/τ) for an interval of `dt` ms.
    mutating func gain(dtMs dt: Double) -> Double {
        exponential(dtMs: dt)
    }

    /// Moves toward `v` after `dt` ms, with the gain scaled by `weight` (0...1: how much
    /// this sample is to be believed).
    mutating func update(_ v: Vector3, dtMs dt: Double, weight: Double = 1) {
        value += (v - value) * (gain(dtMs: dt) * weight)
    }
}
