/// A running estimate of how large 1 g reads on this sensor, learned while it is still.
///
/// Real drivers and firmware tables get the scale wrong by constant factors (milli-g
/// reported as m/s², a wrong range register: ×1000, ×0.001, ×2.6). Orientation comes from
/// the direction of gravity alone, but telling a shake or a stride from gravity needs to
/// know how long gravity is. This learns it, so every magnitude test of the engine is
/// relative to the sensor's own 1 g and the engine decides the same at any scale.
///
/// Until the sensor has been seen still, the estimate is the mean magnitude of the last
/// second or so (``unconfirmedMeanMs``), starting from the first sample's: a first sample
/// taken mid-stride (0.6 g or 1.4 g) is not taken for the sensor's 1 g for as long as the
/// person keeps walking, and a stride's bounce averages out to about 1 g.
///
/// The estimate starts at the magnitude of the first sample and moves (multiplicatively,
/// so it is the same at every scale) toward the magnitude seen while the sensor is *still*:
/// while a short low-pass of |a| has stayed within ``stillBand`` of the samples for
/// ``stillMs`` of sample time. Linear acceleration is never still for long, so shakes,
/// strides and swings do not move it. An observation more than a factor ``trustedRatio``
/// away from the estimate is believed only after ``farStillMs`` of stillness: a free fall
/// (|a| ≈ 0) cannot last that long, and a device at rest after a first sample taken in
/// motion or free fall is corrected within that time.
struct GravityMagnitude: Sendable {
    /// How close each sample's magnitude must stay to the running mean to count as still.
    static let stillBand = 0.04
    /// Stillness needed before an observation is learned.
    static let stillMs = 400.0
    /// Observations beyond this ratio need ``farStillMs`` of stillness.
    static let trustedRatio = 1.5
    static let farStillMs = 1500.0
    /// Time constant of the running mean of |a|.
    static let meanMs = 150.0
    /// Learning time constant once confirmed (in still time); faster before.
    static let learnMs = 2000.0
    static let firstLearnMs = 150.0
    /// Time constant of the mean magnitude that stands in until the first stillness.
    static let unconfirmedMeanMs = 1000.0

    /// The estimate (same unit as the samples); 0 until the first sample.
    private(set) var value = 0.0
    /// Still time learned from so far: 0 means the estimate is still the first sample's.
    private(set) var confirmedMs = 0.0
    private var mean = 0.0
    private var stillFor = 0.0

    /// Starts from a first sample's magnitude.
    mutating func start(_ magnitude: Double) {
        value = magnitude
        mean = magnitude
        confirmedMs = 0
        stillFor = 0
    }

    /// Takes one sample's magnitude after `dt` ms. `alphaFor` gives a low-pass gain for a
    /// time constant (the engine's cached exponential).
    mutating func observe(_ magnitude: Double, dtMs dt: Double, alpha: Double) {
        guard mean > 0 else { start(magnitude); return }
        if confirmedMs == 0 && magnitude.isFinite {
            value += (1 - EngineMath.expNeg(dt / Self.unconfirmedMeanMs)) * (magnitude - value)
            if !(value > 0) { value = magnitude }
        }
        let deviation = abs(magnitude / mean - 1)
        mean += alpha * (magnitude - mean)
        if deviation > Self.stillBand || !(mean > 0) {
            stillFor = 0
            if !(mean > 0) { mean = magnitude }
            return
        }
        stillFor += dt
        guard stillFor >= Self.stillMs else { return }
        let ratio = mean / value
        if ratio > Self.trustedRatio || ratio < 1 / Self.trustedRatio {
            guard stillFor >= Self.farStillMs else { return }
            // Long still at a magnitude far from the estimate: the estimate was wrong.
            value = mean
            confirmedMs = dt
            return
        }
        let tau = confirmedMs >= Self.learnMs ? Self.learnMs : Self.firstLearnMs + confirmedMs
        // value *= ratio^(dt/tau), for small steps ≈ value *= 1 + (ratio - 1) dt/tau.
        let step = min(1, dt / tau)
        value *= 1 + (ratio - 1) * step
        confirmedMs += dt
    }

    /// True once the estimate has been confirmed by at least a second of stillness.
    var isConfirmed: Bool { confirmedMs >= 1000 }
}
