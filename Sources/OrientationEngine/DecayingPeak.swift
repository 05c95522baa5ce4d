/// The largest recent value of a quantity, forgotten exponentially: at time t it is the
/// maximum over past observations dᵢ of dᵢ·e^(−(t − tᵢ)/τ).
///
/// The engine measures disturbance with it: a shake three times what counts as calm is
/// remembered for τ·ln 3, one ten times as large for τ·ln 10. The hold after a movement
/// thus grows with its size, as Android's settle time grows with a recent swing, without
/// a separate hold for each kind of movement; and when the level will fall below a limit
/// is known in advance (``time(fallingTo:)``), so a decision waiting for calm has an
/// exact deadline.
struct DecayingPeak: Sendable {
    /// Time constant τ in ms.
    let timeConstantMs: Double
    /// The last peak: the observation that set the level, and when. (Later, smaller
    /// observations change nothing: the level goes on decaying from the peak, so when it
    /// fell below a limit is known exactly, even afterwards.)
    private(set) var level = 0.0
    private(set) var atMs: Double = 0
    /// The level at the last observation, and when: comparing an observation with it
    /// needs one multiplication by the decay over the interval, cached (most sensors send
    /// at one rate), not an exponential per reading.
    private var current = 0.0
    private var currentMs: Double = 0
    private var cachedDt = -1.0
    private var cachedDecay = 1.0

    init(timeConstantMs: Double) {
        self.timeConstantMs = timeConstantMs
    }

    /// The level at time `t` (ms, not before ``atMs``).
    func level(at t: Double) -> Double {
        guard level > 0, t > atMs else { return level }
        return timeConstantMs > 0 ? level * EngineMath.expNeg((t - atMs) / timeConstantMs) : 0
    }

    /// Takes an observation `d` at time `t`.
    mutating func observe(_ d: Double, at t: Double) {
        let dt = max(0, t - currentMs)
        if dt != cachedDt {
            cachedDt = dt
            cachedDecay = timeConstantMs > 0 ? EngineMath.expNeg(dt / timeConstantMs) : 0
        }
        current *= cachedDecay
        currentMs = max(currentMs, t)
        guard d >= current else { return }
        current = d
        level = d
        atMs = currentMs
    }

    /// The time at which the level falls (or fell) to `limit` (> 0): after the last peak,
    /// or at it if the peak was no higher.
    func time(fallingTo limit: Double) -> Double {
        guard level > limit else { return atMs }
        return atMs + timeConstantMs * EngineMath.log(level / limit)
    }
}
