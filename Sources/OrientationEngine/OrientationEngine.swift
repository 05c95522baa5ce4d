import OrientationAPI

/// Turns timestamped accelerometer samples (and a gyroscope's, where there is one) into
/// an orientation and a tilt.
///
/// The engine is a plain value: no clocks (time comes with the samples), no I/O, no
/// allocation per sample. The daemon and `orientationctl replay` feed it the same way.
/// It has two stages (docs/engine.md tells how it decides and why):
///
/// 1. a **gravity estimate** (``AccelerometerGravity``, wrapped by ``FusedGravity`` for
///    a gyroscope, behind ``GravityEstimator``): where gravity points, how disturbed the
///    readings are and whether the device turns, whether it rests, and the sensor's 1 g;
/// 2. a **judge** (``Judge``): a state machine over that estimate with one decision
///    function, from which both a reading's decision and the deadline come.
///
/// ## Decisions that complete without new samples
///
/// Event-driven sensors (evdev, IIO buffers on a data-ready or motion trigger) send nothing
/// while the device lies still: the kernel drops repeated values. ``nextDeadlineMs`` says
/// when a pending decision would complete if the last reading stood, and
/// ``advance(toMs:)`` decides at that time; the daemon arms a timer for the one and calls
/// the other, and `orientationctl replay` does the same between the samples of a trace.
/// A decision completes between readings only once the sensor has been silent (for half as
/// long again as it took to send its last reading): a sensor that keeps sending is heard
/// out, because its next reading may contradict the last. A sensor that streams
/// (``SensorDelivery/stream``: a poll, a recording) is always heard out: its gap is a
/// dropout, not a device lying still.
public struct OrientationEngine: Sendable {
    /// The tunables this engine was made with.
    public let tunables: EngineTunables

    private var gravity: FusedGravity
    private var judge: Judge
    private var started = false
    /// The latest time the engine has seen: a reading's, or one it was advanced to.
    private var clockMs = 0.0
    private var lastDecision = Judge.Decision()
    private var lastWasFirst = false

    /// How the sensor delivers its readings: what its silence means.
    public let delivery: SensorDelivery

    public init(tunables: EngineTunables = .default, delivery: SensorDelivery = .onChange) {
        self.tunables = tunables
        self.delivery = delivery
        gravity = FusedGravity(tunables: tunables, delivery: delivery)
        judge = Judge(tunables: tunables)
    }

    /// The reported orientation; `.undefined` until a sample that is not flat was seen.
    public var orientation: Orientation { judge.orientation }
    /// The reported tilt; `.undefined` until the first sample.
    public var tilt: Tilt { judge.tilt }

    /// Forget all history (called when the first client starts). Orientation and tilt go
    /// back to `.undefined`, and the next sample decides both at once.
    public mutating func reset() {
        self = OrientationEngine(tunables: tunables, delivery: delivery)
    }

    /// The same for a sensor that delivers its readings as `delivery` says.
    public mutating func reset(delivery: SensorDelivery) {
        self = OrientationEngine(tunables: tunables, delivery: delivery)
    }

    /// The magnitude of gravity learned from this sensor at rest, in the samples' unit
    /// (m/s² for a correctly scaled sensor); nil until confirmed by about a second of rest.
    public var learnedGravity: Double? { gravity.learnedGravity }

    /// True when the learned gravity is far (more than a third) from `StandardGravity`:
    /// the sensor's scale is most likely wrong. The engine decides correctly either way;
    /// the daemon logs it once, as a hint for a driver or hwdb fix.
    public var scaleLooksWrong: Bool {
        guard let g = learnedGravity else { return false }
        let ratio = g / tunables.standardGravity
        return ratio > 4.0 / 3.0 || ratio < 3.0 / 4.0
    }

    /// The one log line for ``scaleLooksWrong``, e.g. "sensor scale looks wrong: gravity
    /// reads 251 m/s^2 at rest, expected 9.81"; nil while the scale looks right.
    /// (`mutating get` for the reason given at ``nextDeadlineMs``.)
    public var scaleWarning: String? {
        mutating get {
            guard scaleLooksWrong, let g = learnedGravity else { return nil }
            let digits = g >= 100 ? 0 : g >= 1 ? 2 : 4
            return "sensor scale looks wrong: gravity reads \(fmt(g, digits)) m/s^2 at rest, expected "
                + fmt(tunables.standardGravity, 2) + " (orientation is still decided from its direction)"
        }
    }

    /// When the pending change of orientation or tilt would complete if the last reading
    /// stood (a silent, event-driven sensor): a time on the samples' clock, later than the
    /// last one; nil when nothing is pending or no time would complete it. Call
    /// ``advance(toMs:)`` then.
    ///
    /// `mutating get` changes nothing: it lets a caller that keeps the engine in a class
    /// (the service, once per sample) read it in place, where a plain getter from another
    /// module is handed a copy of the whole engine at every call.
    public var nextDeadlineMs: Int64? {
        mutating get {
            guard started, let until = judge.decide(at: clockMs, gravity.estimate).untilMs else { return nil }
            // Whole milliseconds, at least one later: the samples' clock is in ms.
            let ms = max(clockMs + 1, until.rounded(.up))
            guard ms < 9.2e18 else { return nil }
            return Int64(ms)
        }
    }

    /// When a sensor that polls should read next, if earlier than it would: the earliest
    /// time at which one more reading that agrees with the last would complete a pending
    /// change of orientation (a still device turned between two polls is then announced
    /// a fraction of a poll later, not a whole one); nil when nothing is pending.
    /// (`mutating get` for the reason given at ``nextDeadlineMs``.)
    public var readingWantedMs: Int64? {
        mutating get {
            guard started, let wanted = judge.decide(at: clockMs, gravity.estimate).readingWantedMs else { return nil }
            let ms = max(clockMs + 1, wanted.rounded(.up))
            guard ms < 9.2e18 else { return nil }
            return Int64(ms)
        }
    }

    /// Decides at `timeMs` with no new reading (see ``nextDeadlineMs``). Returns true when
    /// the orientation or the tilt changed. Does nothing before the first sample or for a
    /// time that is not later than the engine's clock.
    @discardableResult
    public mutating func advance(toMs timeMs: Int64) -> Bool {
        let t = Double(timeMs)
        guard started, t > clockMs else { return false }
        clockMs = t
        return decide(gravity.estimate)
    }

    /// Feed one gyroscope reading, on the accelerometer's clock (see ``FusedGravity``): it
    /// turns the up vector between accelerometer readings; it decides nothing by itself.
    /// A gyroscope is used while it sends, and given up for good, with one line from
    /// ``gyroscopeWarning``, when it is found stuck or disagreeing with the accelerometer.
    public mutating func feedGyroscope(_ sample: GyroscopeSample) {
        gravity.observeGyroscope(sample)
    }

    /// Whether the last accelerometer reading was fused with the gyroscope.
    public var fusingGyroscope: Bool { gravity.fusing }

    /// Whether the gyroscope was given up (stuck, or disagreeing with the accelerometer).
    public var gyroscopeRejected: Bool { gravity.trouble != nil }

    /// The one log line for a gyroscope trouble, once each; nil when there is none new.
    public var gyroscopeWarning: String? {
        mutating get { gravity.takeWarning() }
    }

    /// Feed one sample. Returns true when the orientation or the tilt changed.
    ///
    /// Samples with a non-finite component, too large to square, exactly zero, or more than
    /// a thousand times the learned 1 g are ignored (no state change, not even of the
    /// clock). A timestamp that does not increase counts as no time passing.
    @discardableResult
    public mutating func feed(_ sample: Sample) -> Bool {
        let previous = gravity.lastReadingMs
        guard gravity.observe(sample) else { return false }
        let t = Double(sample.timeMs)
        guard started else {
            started = true
            clockMs = t
            judge.start(gravity.estimate)
            lastWasFirst = true
            return orientation != .undefined || tilt != .undefined
        }
        lastWasFirst = false
        clockMs = max(clockMs, t)
        let credit = min(max(0, t - previous), tunables.maxIntervalMs)
        // One copy of the estimate for both (each read of `gravity.estimate` copies it).
        let e = gravity.estimate
        judge.observe(e, at: t, creditMs: credit)
        return decide(e)
    }

    private mutating func decide(_ e: GravityEstimate) -> Bool {
        lastDecision = judge.decide(at: clockMs, e)
        return judge.apply(lastDecision)
    }

    // MARK: - Explanation

    /// A human-readable account of the last decision: the estimate, the angles, the
    /// judge's state and what it waits for. Meant for `orientationctl replay --explain` and
    /// bug reports; the format may change.
    public var explanation: String {
        guard started else { return "no sample yet" }
        let e = gravity.estimate
        let a = judge.geometry.angles(e.up)
        var s = "t=\(fmt(clockMs, 0))ms"
        s += " up=(\(fmt(e.up.x, 3)),\(fmt(e.up.y, 3)),\(fmt(e.up.z, 3))) 1g=\(fmt(gravity.accelerometer.gravity, 3))"
        if gravity.fusing {
            let b = gravity.bias * (1 / EngineMath.radiansPerDegree)
            s += " fused with the gyroscope (bias \(fmt(b.x, 1)),\(fmt(b.y, 1)),\(fmt(b.z, 1)) deg/s)"
        }
        s += " phi=\(fmt(a.phi, 1))deg elevation=\(fmt(a.elevation, 1))deg"
        if lastWasFirst {
            s += " first sample after reset: decided at once"
            return s + " -> \(orientation.rawValue),\(tilt.rawValue)"
        }
        s += " disturbance=\(fmt(e.disturbance.level(at: clockMs), 2)) at-1g=\(fmt(e.gravityShare, 2))"
        let flatward = max(judge.flatward.peak.level(at: clockMs), judge.attitudeFlatward.peak.level(at: clockMs))
        if flatward > 0.005 { s += " toward-flat=\(fmt(flatward, 2))" }
        let restMs = e.restMs(at: clockMs)
        if e.restReadings >= 2 || e.silent(at: clockMs) {
            s += " unchanged for \(fmt(restMs, 0))ms (\(e.restReadings) readings\(e.restIsGravity ? "" : ", not at 1 g"))"
        }
        if judge.pickUp.active(e) {
            // What the pick-up reads: the readings' plain mean (GravityEstimate.meanUp).
            s += " picking-up (mean phi=\(fmt(judge.geometry.angles(e.meanUp).phi, 1))deg)"
            if let c = judge.candidate.value ?? judge.pickUpCandidate.value,
               let allowed = judge.pickUp.allowance(for: c, e, geometry: judge.geometry) {
                s += " (\(c.rawValue) allowed \(fmt(allowed.limit, 2))"
                s += allowed.fromMs.isFinite ? " from \(fmt(allowed.fromMs, 0))ms)" : " once it stops turning)"
            }
        }
        s += " state=\(judge.state.rawValue)"
        if let c = judge.candidate.value {
            s += " proposing \(c.rawValue) for \(fmt(clockMs - judge.candidate.sinceMs, 0))ms"
            if judge.candidate.lapsed { s += " (this reading falls back short of it: forgiven once)" }
            if !judge.attitudeProposes(c, e) { s += " (not the attitude)" }
        }
        if let c = judge.strideCandidate.value {
            s += " stride estimate proposing \(c.rawValue) for \(fmt(clockMs - judge.strideCandidate.sinceMs, 0))ms"
        }
        if e.isAttitude {
            let t = judge.geometry.angles(e.tiltUp)
            s += " attitude phi=\(fmt(t.phi, 1))deg elevation=\(fmt(t.elevation, 1))deg"
        }
        if e.strideUp != .zero {
            let t = judge.geometry.angles(e.strideUp)
            s += " stride phi=\(fmt(t.phi, 1))deg elevation=\(fmt(t.elevation, 1))deg length=\(fmt(e.strideLength, 2))g"
        }
        if e.strideAttitude != .zero {
            let t = judge.geometry.angles(e.strideAttitude)
            s += " attitude's stride phi=\(fmt(t.phi, 1))deg elevation=\(fmt(t.elevation, 1))deg"
        }
        if let rule = lastDecision.orientationRule, let o = lastDecision.orientation {
            s += " committed \(o.rawValue) (\(rule.rawValue))"
        }
        if let rule = lastDecision.tiltRule, let level = lastDecision.tilt {
            s += " committed tilt \(level.rawValue) (\(rule.rawValue))"
        }
        if let until = lastDecision.untilMs { s += " look again at \(fmt(until.rounded(.up), 0))ms" }
        return s + " -> \(orientation.rawValue),\(tilt.rawValue)"
    }
}

/// Fixed-point rendering without Foundation: `fmt(3.14159, 2)` is "3.14".
func fmt(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return String(v) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let r = (abs(v) * scale).rounded()
    guard r < 9.0e15 else { return String(v) }
    let n = Int64(r)
    let p = Int64(scale)
    var s = v < 0 && n != 0 ? "-" : ""
    s += String(n / p)
    if decimals > 0 {
        let frac = String(n % p)
        s += "." + String(repeating: "0", count: decimals - frac.count) + frac
    }
    return s
}
