/// The gain 1 − e^(−Δt/τ) of a first-order low-pass filter over real time, for filters of
/// a vector (``LowPass``) and of a number alike.
///
/// The same filter at 10 and at 200 Hz, with jittered timestamps and across gaps (a
/// sample after a long gap replaces the estimate almost entirely, as it should). The
/// gain of the last interval is cached: most sensors send at one rate, and the
/// exponential is the costliest step of a sample.
struct ExponentialGain: Sendable {
    /// Time constant τ in ms; 0 passes every sample through (gain 1).
    let timeConstantMs: Double
    private var cachedDt = -1.0
    private var cachedGain = 1.0

    init(timeConstantMs: Double) {
        self.timeConstantMs = timeConstantMs
    }

    /// The gain for an interval of `dt` ms.
    mutating func callAsFunction(dtMs dt: Double) -> Double {
        if dt != cachedDt {
            cachedDt = dt
            cachedGain = timeConstantMs > 0 ? 1 - EngineMath.expNeg(dt / timeConstantMs) : 1
        }
        return cachedGain
    }
}
