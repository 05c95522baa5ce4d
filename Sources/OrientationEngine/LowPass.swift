/// A first-order low-pass filter of a vector over real time.
///
/// The gain for an interval Δt is 1 − e^(−Δt/τ): the same filter at 10 and at 200 Hz, with
/// jittered timestamps and across gaps (a sample after a long gap replaces the estimate
/// almost entirely, as it should). The gain of the last interval is cached: most sensors
/// send at one rate, and the exponential is the costliest step of a sample.
struct LowPass: Sendable {
    /// Time constant τ in ms; 0 passes every sample through.
    let timeConstantMs: Double
    private(set) var value = Vector3.zero
    private var cachedDt = -1.0
    private var cachedGain = 1.0

    init(timeConstantMs: Double) {
        self.timeConstantMs = timeConstantMs
    }

    /// Starts over at `v`.
    mutating func reset(to v: Vector3) {
        value = v
    }

    /// The gain 1 − e^(−Δt/τ) for an interval of `dt` ms.
    mutating func gain(dtMs dt: Double) -> Double {
        if dt != cachedDt {
            cachedDt = dt
            cachedGain = timeConstantMs > 0 ? 1 - EngineMath.expNeg(dt / timeConstantMs) : 1
        }
        return cachedGain
    }

    /// Moves toward `v` after `dt` ms, with the gain scaled by `weight` (0...1: how much
    /// this sample is to be believed).
    mutating func update(_ v: Vector3, dtMs dt: Double, weight: Double = 1) {
        value += (v - value) * (gain(dtMs: dt) * weight)
    }
}
