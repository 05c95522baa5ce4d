import OrientationAPI

/// The engine's second stage: decides orientation and tilt from a ``GravityEstimate``.
///
/// One function, ``decide(at:_:)``, says for any time whether a change is due then or
/// when it will be: the engine calls it at every reading and, with no new reading, at the
/// time it returned (an event-driven sensor that stopped sending). The rules are written
/// once, so the deadline can never disagree with the decision.
///
/// The state, as a person would describe it (``state``):
/// - *settled*: nothing proposed; the reported orientation stands;
/// - *proposing*: the estimate argues for another orientation, from the moment it passed
///   `OrientationHysteresisDeg` beyond the 45° boundary;
/// - *held flat* / *held overhead*: the screen faces the sky or the floor (beyond
///   `MaxElevationDeg` or `MinElevationDeg`); the orientation is kept, and a proposal
///   after it must wait `FlatExitMs` (a bump lifts an edge for a moment; a pick-up is a
///   long, steady movement).
///
/// A proposal is committed by one of these kinds of evidence:
/// - **rest**: the readings have not changed for `RestMs` (``Rest``), at the sensor's 1 g:
///   their mean is gravity, and it is decided at once. People end a turn they mean by
///   holding still; a hand still moving never rests. This is what makes the engine fast.
/// - **calm**: the proposal has stood `OrientationSettleMs` (one reading that falls back
///   inside the hysteresis forgiven, not decided on: a pose held at the leave angle) and
///   the disturbance has fallen to calm (it decays over `DisturbanceDecayMs` from its
///   last peak, so the wait after a movement grows with its size), with at least
///   `CalmGravityShare` of the recent readings at 1 g, and the screen not turning toward
///   flat (`FlatwardRateDegS`, ``FlatwardSweep``: a device tumbled through an orientation
///   is not held there), and, with a gyroscope integrated, the attitude proposing it too
///   (a push tips the readings, not the device).
///   Under sustained linear acceleration (a run, a swing) the disturbance seldom falls,
///   and when it does for a moment between strides, the few readings near 1 g are the
///   arm's pull as much as gravity: holding on is right far more often than following it.
/// - **calm, just picked up** (``PickUp``): for `PickUpMs` after the device lay still, calm
///   allows the readings' direction as much disturbance as the estimate lies deep inside
///   the proposed orientation's sector (in `CalmAngleDeg`s, times cos θ; in the whole
///   free zone, its own proposal, ``pickUpCandidate``), once the readings' plain mean
///   has stopped turning and the readings' length is calm: a pose shaken into place by the
///   hand that picked the device up is decided without waiting for the shaking to end.
/// - **stride**: under sustained linear acceleration a slow average of the readings
///   (`StrideFilterMs`), over which a run's forces cancel, has proposed the same
///   orientation for `StrideMs`: a turn made while running is followed a second or two
///   later rather than never, and a wrong first reading taken mid-stride is corrected.
///   Only while that average reads 1 g (within `AccelerationToleranceG`; before a rest
///   has shown the sensor's 1 g, `StandardGravity`): a phone swung in a running hand is a
///   pendulum, and the arm's pull does not cancel (in a recording it averaged 2 g, 60°
///   from gravity). With a gyroscope integrated, its attitude averaged
///   (``GravityEstimate/strideAttitude``) proposes, and the readings averaged over the
///   same time must lie on its side of the boundary (their nearest orientation is the
///   proposal; the attitude has passed the hysteresis) and be no longer than 1 g allows:
///   the one is pulled, the other carries the gyroscope's errors.
///
/// A proposal less than `EdgeDeg` past the leave angle must stand `EdgeSettleMs` for rest
/// and calm alike: a device only just past the boundary is most often at the end of a
/// movement (a swing's turning point, a running arm's pull), not held there.
///
/// Calm and stride commit only below `CalmElevationDeg` (near flat, φ is ill-conditioned
/// and a hand's wobble swings it across a boundary); a rest up to `MaxElevationDeg`.
///
/// Each needs `ConfirmReadings` readings (a single reading, at 10 Hz, may be one
/// stride's sample that happened to read 1 g elsewhere), and is complete only at a
/// reading or once the sensor is silent (its last reading stands for the time since):
/// between the readings of a sensor that keeps sending, the next reading may contradict.
/// Tilt follows the same three rules: rest (lasting `TiltSettleMs` too), calm on the plain
/// tilt estimate after `TiltSettleMs` with a looser limit (`TiltDisturbanceLimit` times
/// calm: a plain average copes with a stride; the settle time counts from the last
/// reading beyond the limit, a knock's; from sparse readings, `SparseReadingMs`, only
/// once the stride estimate agrees or the last `StrideFilterMs` were calm), and the stride
/// estimate's elevation (not against a rest).
struct Judge: Sendable {
    enum State: String, Sendable {
        case settled, proposing
        case heldFlat = "held-flat"
        case heldOverhead = "held-overhead"
    }

    /// Which evidence committed a change.
    enum Rule: String, Sendable {
        case rest = "at rest"
        case calm = "calm"
        case stride = "stride estimate"
        case pickUp = "calm, just picked up"
    }

    /// What ``decide(at:_:)`` found: what to commit now, else when to look again.
    struct Decision: Sendable {
        var orientation: Orientation?
        var orientationRule: Rule?
        var tilt: Tilt?
        var tiltRule: Rule?
        /// The earliest later time at which a pending change would complete with no new
        /// reading; nil when none would.
        var untilMs: Double?
        /// The earliest time at which one more reading that agrees with the last would
        /// complete a pending change of orientation: a sensor that polls may read then
        /// rather than at its next tick. Nil when none would.
        var readingWantedMs: Double?

        mutating func wait(_ t: Double) { untilMs = min(untilMs ?? t, t) }
        mutating func want(_ t: Double) { readingWantedMs = min(readingWantedMs ?? t, t) }
    }

    let geometry: Geometry
    private let settleMs: Double
    private let edgeSettleMs: Double
    private let flatExitMs: Double
    private let restMs: Double
    private let confirmReadings: Int
    private let tiltSettleMs: Double
    private let tiltDisturbanceLimit: Double
    private let sparseReadingMs: Double
    private let strideMs: Double
    private let strideLengthTolerance: Double
    private let sinCalmElevation: Double
    private let sinRestElevation: Double
    private let calmGravityShare: Double
    private(set) var flatward: FlatwardSweep
    /// The same on the attitude, where a gyroscope turns one: it sees a tumble at once,
    /// where the readings' estimate lags it.
    private(set) var attitudeFlatward: FlatwardSweep
    /// Whether the device is being picked up, and what calm then allows.
    private(set) var pickUp: PickUp
    /// When the last reading more disturbed than `TiltDisturbanceLimit` came.
    private(set) var tiltDisturbedMs = -Double.infinity

    private(set) var orientation: Orientation = .undefined
    private(set) var tilt: Tilt = .undefined
    private(set) var candidate = Candidate<Orientation>()
    /// The same above `CalmElevationDeg` too (the whole free zone), read from the readings'
    /// plain mean (``GravityEstimate/meanUp``): what a pick-up may commit, its allowance
    /// shrinking as φ grows sensitive toward flat (``PickUp``).
    private(set) var pickUpCandidate = Candidate<Orientation>()
    private(set) var tiltCandidate = Candidate<Tilt>()
    private(set) var strideCandidate = Candidate<Orientation>()
    private(set) var strideTiltCandidate = Candidate<Tilt>()
    /// The tilt the stride estimate reads now (nil while it does not read 1 g).
    private(set) var strideTilt: Tilt?
    private(set) var zone = Geometry.Zone.free
    /// When the estimate last came into the free zone (−∞: it never left it).
    private(set) var freeSinceMs = -Double.infinity

    init(tunables t: EngineTunables) {
        geometry = Geometry(tunables: t)
        settleMs = t.orientationSettleMs
        edgeSettleMs = t.edgeDeg > 0 ? t.edgeSettleMs : 0
        flatExitMs = t.flatExitMs
        restMs = t.restMs
        confirmReadings = Int(t.confirmReadings.rounded(.up))
        tiltSettleMs = t.tiltSettleMs
        tiltDisturbanceLimit = t.tiltDisturbanceLimit
        sparseReadingMs = t.sparseReadingMs
        strideMs = t.strideMs
        strideLengthTolerance = t.accelerationToleranceG
        sinCalmElevation = EngineMath.sinDegrees(t.calmElevationDeg)
        sinRestElevation = EngineMath.sinDegrees(t.restElevationDeg)
        calmGravityShare = t.calmGravityShare
        flatward = FlatwardSweep(tunables: t)
        attitudeFlatward = FlatwardSweep(tunables: t)
        pickUp = PickUp(tunables: t)
    }

    var state: State {
        switch zone {
        case .flat: .heldFlat
        case .overhead: .heldOverhead
        case .free: candidate.value == nil ? .settled : .proposing
        }
    }

    /// The first reading decides at once: the nearest orientation (none when flat or
    /// overhead) and the plain tilt label.
    mutating func start(_ e: GravityEstimate) {
        let a = geometry.pose(e.up)
        zone = a.zone
        orientation = a.zone == .free ? Geometry.nearest(a) : .undefined
        freeSinceMs = a.zone == .free ? -.infinity : .infinity
        tilt = geometry.tilt(a, current: nil)
        pickUp.observe(e, sinElevation: a.sinElevation, at: e.lastReadingMs, creditMs: 0)
    }

    /// Bookkeeping at a reading at `t`, `creditMs` after the one before: the zone and
    /// the proposals.
    mutating func observe(_ e: GravityEstimate, at t: Double, creditMs: Double) {
        let a = geometry.pose(e.up)
        zone = a.zone
        let began = EngineMath.firstSeen(at: t, intervalMs: creditMs)
        flatward.observe(sinElevation: a.sinElevation, at: t, dtMs: creditMs)
        pickUp.observe(e, sinElevation: a.sinElevation, at: t, creditMs: creditMs)
        if e.isAttitude {
            attitudeFlatward.observe(sinElevation: geometry.pose(e.tiltUp).sinElevation, at: t, dtMs: creditMs)
        } else {
            attitudeFlatward.restart()
        }
        if e.lastDisturbance > tiltDisturbanceLimit { tiltDisturbedMs = t }
        if a.zone != .free {
            freeSinceMs = .infinity
        } else if freeSinceMs == .infinity {
            freeSinceMs = began
        }
        // Near flat only a rest decides (CalmElevationDeg). A pose held at the leave angle
        // (a phone at the ear, at φ 55–65°) has readings on both sides of it: one that
        // falls back inside the hysteresis, after a proposal confirmed by ConfirmReadings,
        // is forgiven, and the proposal's time goes on counting (at 10 Hz it had waited
        // for a run of readings all past the line: 0 or 600 ms, as the poll's phase fell).
        let p = a.sinElevation < sinCalmElevation ? geometry.proposal(a, current: orientation) : nil
        candidate.propose(p == orientation ? nil : p, since: began,
                          forgivingAfter: p == orientation ? confirmReadings : .max)
        let q = pickUp.active(e) ? geometry.proposal(geometry.pose(e.meanUp), current: orientation) : nil
        pickUpCandidate.propose(q == orientation ? nil : q, since: began)
        var stride: Orientation?
        var strideTilt: Tilt?
        if strideMs > 0 && e.strideAttitude != .zero {
            // A gyroscope's attitude: tilt reads it; the orientation needs the readings'
            // average to agree (``GravityEstimate/strideAttitude``): to lie on the
            // attitude's side of the boundary, which catches a gyroscope's errors, not to
            // pass the hysteresis too, which an arm's pull that tips it back toward the
            // old orientation may keep it from for good.
            let a = geometry.pose(e.strideAttitude)
            strideTilt = geometry.tilt(a, current: tilt)
            // The readings' average no longer than 1 g allows: a pull that does not
            // average out across the screen lengthens it as it tips it (a roll only
            // shortens it).
            if a.sinElevation < sinCalmElevation && e.strideLength - 1 <= strideLengthTolerance {
                let r = geometry.pose(e.strideUp)
                let p = geometry.proposal(a, current: orientation)
                stride = r.sinElevation < sinCalmElevation && r.zone == .free && Geometry.nearest(r) == p ? p : nil
            }
        } else if strideMs > 0 && abs(e.strideLength - 1) <= strideLengthTolerance {
            let a = geometry.pose(e.strideUp)
            stride = a.sinElevation < sinCalmElevation ? geometry.proposal(a, current: orientation) : nil
            strideTilt = geometry.tilt(a, current: tilt)
        }
        strideCandidate.propose(stride == orientation ? nil : stride, since: began)
        strideTiltCandidate.propose(strideTilt == tilt ? nil : strideTilt, since: began)
        self.strideTilt = strideTilt
        let level = geometry.tilt(geometry.pose(e.tiltUp), current: tilt)
        tiltCandidate.propose(level == tilt ? nil : level, since: began)
    }

    /// When evidence that is complete in time at `needMs`, seen by `readings` readings, is
    /// complete: at the last reading if it already is; else, where silence means the last
    /// reading holds (``SensorDelivery``), once the sensor is silent (its last reading then
    /// counts once more); nil while it needs another reading.
    private func due(_ needMs: Double, readings: Int, _ e: GravityEstimate) -> Double? {
        guard needMs.isFinite else { return nil }
        if readings >= confirmReadings && needMs <= e.lastReadingMs { return e.lastReadingMs }
        if readings + 1 >= confirmReadings && e.silenceHolds { return max(needMs, e.lastReadingMs + e.silenceMs) }
        return nil
    }

    /// Whether the device's attitude proposes `o` too, where a gyroscope read often enough
    /// to integrate says where the device is (always, without one). Calm reads the
    /// readings' estimate, which a hand's push across the screen tips without turning the
    /// device: at the ear, a walk's sway held the readings 1–3° past the leave angle for a
    /// quarter of a second while the attitude stayed short of it, and the turn the phone
    /// never made was committed.
    func attitudeProposes(_ o: Orientation, _ e: GravityEstimate) -> Bool {
        !e.attitudeIsIntegrated || geometry.proposal(geometry.pose(e.tiltUp), current: orientation) == o
    }

    /// Whether a pose argues for leaving the current orientation only just (`EdgeDeg`).
    private func atEdge(_ a: Geometry.Pose) -> Bool {
        edgeSettleMs > 0 && geometry.atEdge(a, leaving: orientation)
    }

    /// Whether a pose that leaves the current orientation lies above `RestElevationDeg`,
    /// where φ moves twice as far as the direction of gravity and more (never with no
    /// current orientation: then any is better than none).
    private func nearFlat(_ a: Geometry.Pose) -> Bool {
        orientation != .undefined && a.sinElevation >= sinRestElevation
    }

    /// When the disturbance (`peak`, by default the estimate's) is at or below `limit`
    /// times calm for good (the last reading itself too: held, it stands for itself); +∞
    /// if that reading is not.
    private func calm(_ e: GravityEstimate, limit: Double, peak: DecayingPeak? = nil) -> Double {
        e.lastDisturbance <= limit ? (peak ?? e.disturbance).time(fallingTo: limit) : .infinity
    }

    /// The decision at time `t` (at or after the last reading), with no reading after it.
    ///
    /// `mutating` changes nothing: it hands the judge over in place, where a plain method
    /// of a struct this large is handed a copy of all of it at every call (5 % of the
    /// engine's work per reading, measured with callgrind).
    mutating func decide(at t: Double, _ e: GravityEstimate) -> Decision {
        var d = Decision()
        // Evidence due at `when`: committed if that is now (the first rule to commit
        // wins: rest before calm, its mean being gravity itself), else waited for.
        func orientation(_ when: Double?, _ value: Orientation, _ rule: Rule, needMs: Double, readings: Int) {
            if readings + 1 >= confirmReadings && needMs.isFinite { d.want(max(needMs, e.lastReadingMs + 1)) }
            guard let when else { return }
            if when > t { d.wait(when) } else if d.orientation == nil { d.orientation = value; d.orientationRule = rule }
        }
        func tilt(_ when: Double?, _ value: Tilt, _ rule: Rule) {
            guard let when else { return }
            if when > t { d.wait(when) } else if d.tilt == nil { d.tilt = value; d.tiltRule = rule }
        }
        // A rest at 1 g that is, or with one more reading will be, complete: its mean is
        // gravity. (Not only once silence would complete it: a stream's next reading, and
        // a poll's early one, may.)
        let restCounts = restMs > 0 && e.restIsGravity && e.restReadings > 0 && e.restReadings + 1 >= confirmReadings
        if restCounts {
            let a = geometry.pose(e.restUp)
            if let p = geometry.proposal(a, current: self.orientation), p != self.orientation {
                // At the edge, a rest too must last EdgeSettleMs: a swing's turning point is
                // still for a moment. So must one near flat (RestElevationDeg): a texting
                // hand's pause there reads 10° of φ away.
                let need = e.restSinceMs + (atEdge(a) || nearFlat(a) ? max(restMs, edgeSettleMs) : restMs)
                orientation(due(need, readings: e.restReadings, e), p, .rest, needMs: need, readings: e.restReadings)
            }
            // Tilt is no race: a rest must also have lasted TiltSettleMs (a stride tips a
            // phone in a pocket, and near the top of the tip it is still for a moment).
            let level = geometry.tilt(a, current: self.tilt)
            if level != self.tilt {
                tilt(due(e.restSinceMs + max(restMs, tiltSettleMs), readings: e.restReadings, e), level, .rest)
            }
        }
        if let c = candidate.value, !candidate.lapsed {
            // Where the device is, for the edge: its attitude where a gyroscope turns one
            // (readings a hand pushes sideways sit some degrees off it, and the estimate
            // lags a turn's end), else the estimate calm reads.
            let settle = atEdge(geometry.pose(e.isAttitude ? e.tiltUp : e.up)) ? max(settleMs, edgeSettleMs) : settleMs
            // Calm decides only from an estimate that rests on gravity (CalmGravityShare),
            // and, with a gyroscope integrated, only what the attitude proposes too.
            let supported = e.gravityShare >= calmGravityShare
            let held = max(freeSinceMs + flatExitMs, flatward.calmFromMs, attitudeFlatward.calmFromMs)
            let need = supported && attitudeProposes(c, e)
                ? max(candidate.sinceMs + settle, held, calm(e, limit: 1)) : .infinity
            orientation(due(need, readings: candidate.readings, e), c, .calm, needMs: need, readings: candidate.readings)
        }
        // Just picked up, the hand's shaking need not end first (``PickUp``).
        if let c = pickUpCandidate.value, e.gravityShare >= calmGravityShare,
           let allowed = pickUp.allowance(for: c, e, geometry: geometry) {
            let settle = atEdge(geometry.pose(e.meanUp)) ? max(settleMs, edgeSettleMs) : settleMs
            let need = max(pickUpCandidate.sinceMs + settle, freeSinceMs + flatExitMs, flatward.calmFromMs,
                           attitudeFlatward.calmFromMs, calm(e, limit: allowed.limit), allowed.fromMs)
            if need <= allowed.endsMs {
                orientation(due(need, readings: pickUpCandidate.readings, e), c, .pickUp, needMs: need,
                            readings: pickUpCandidate.readings)
            }
        }
        if let c = strideCandidate.value {
            orientation(due(strideCandidate.sinceMs + strideMs, readings: strideCandidate.readings, e), c, .stride,
                        needMs: strideCandidate.sinceMs + strideMs, readings: strideCandidate.readings)
        }
        // A rest's mean is gravity itself: the stride estimate's second-long average, still
        // holding the movement before it, does not overrule it.
        if let c = strideTiltCandidate.value, !restCounts {
            tilt(due(strideTiltCandidate.sinceMs + strideMs, readings: strideTiltCandidate.readings, e), c, .stride)
        }
        // Read from the device's attitude (a gyroscope turns it), tilt needs no calm: a
        // swinging arm is never calm, and its tilt is known all the same. From sparse
        // readings (SparseReadingMs), a stride's jolts fall between them, and a few
        // calm-looking readings may be a pocket tipped for a moment: calm then needs the
        // stride estimate to agree, or the disturbance to have been calm over the stride
        // estimate's own time (a phone held in front on a walk: the readings were calm
        // all along, and the stride estimate would only add its second of lag).
        let sparse = e.intervalMs > sparseReadingMs && !e.isAttitude
        if let c = tiltCandidate.value {
            let calmMs = e.isAttitude ? -Double.infinity : calm(e, limit: tiltDisturbanceLimit, peak: e.tiltDisturbance)
            // The settle time counts from the last reading beyond the limit: a knock's readings
            // stay in the tilt filter's memory for a while after it.
            let settledMs = e.isAttitude ? tiltCandidate.sinceMs : max(tiltCandidate.sinceMs, tiltDisturbedMs)
            var need = max(settledMs + tiltSettleMs, calmMs)
            if sparse, let s = strideTilt, s != c { need = max(need, e.strideDisturbance.time(fallingTo: 1)) }
            tilt(due(need, readings: tiltCandidate.readings, e), c, .calm)
        }
        if d.orientation != nil || d.tilt != nil {
            d.untilMs = nil
            d.readingWantedMs = nil
        }
        return d
    }

    /// Commits what `d` decided; true if anything changed.
    mutating func apply(_ d: Decision) -> Bool {
        var changed = false
        if let o = d.orientation, o != orientation {
            orientation = o
            candidate.clear()
            pickUpCandidate.clear()
            strideCandidate.clear()
            changed = true
        }
        if let level = d.tilt, level != tilt {
            tilt = level
            tiltCandidate.clear()
            strideTiltCandidate.clear()
            changed = true
        }
        return changed
    }
}
