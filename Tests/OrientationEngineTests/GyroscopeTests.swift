import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine

/// The gyroscope beside the accelerometer: what it adds, and what happens when it is wrong.
@Suite("Gyroscope")
struct GyroscopeTests {
    /// A device turning about its screen normal (φ(t) in degrees, elevation 0) at 100 Hz:
    /// the accelerometer's readings and, unless `gyro` is nil, the gyroscope's (its rate
    /// about z is dφ/dt, passed through `gyro` to bias, scale or break it, plus a little
    /// noise). Returns the
    /// engine after `ms` and the orientations it reported.
    func run(ms: Int, tunables: EngineTunables = .default, phi: (Double) -> Double,
             gyro: ((Int64, Double) -> GyroscopeSample?)? = { t, rate in GyroscopeSample(timeMs: t, x: 0, y: 0, z: rate) })
        -> (engine: OrientationEngine, seen: [Orientation], warnings: [String]) {
        var e = OrientationEngine(tunables: tunables)
        var seen: [Orientation] = []
        var warnings: [String] = []
        for t in stride(from: 0, to: ms, by: 10) {
            let time = Double(t)
            let rate = rateOf(phi, at: time)
            // A real gyroscope's noise: it never repeats a reading exactly.
            if let gyro, let g = gyro(Int64(t), rate) {
                e.feedGyroscope(noisyGyroscope(t: g.timeMs, x: g.x, y: g.y, z: g.z))
            }
            e.feed(poseSample(t: Int64(t), phi: phi(time), theta: 0))
            if seen.last != e.orientation { seen.append(e.orientation) }
            if let w = e.gyroscopeWarning { warnings.append(w) }
        }
        return (e, seen, warnings)
    }

    /// Normal, then a pass into left-up and back at 110°/s (half a second each way in
    /// left-up's sector), then normal: slow enough that every accelerometer reading is
    /// within CalmAngleDeg of its filter, fast enough for the gyroscope to count it as
    /// turning (GyroCalmRateDegS 90).
    static func wave(_ t: Double) -> Double {
        switch t {
        case ..<1000: 0
        case ..<2045: -0.11 * (t - 1000)
        case ..<3090: -115 + 0.11 * (t - 2045)
        default: 0
        }
    }

    /// Feeds readings every `stepMs` from `start` to `end` ms: the gyroscope turning about
    /// the device's x axis at `xRate(t)` rad/s (with a real gyroscope's noise: it never
    /// repeats a reading), then the accelerometer's `reading(t)`. The gyroscope's warnings.
    @discardableResult
    func feedTurningAboutX(_ e: inout OrientationEngine, from start: Int64 = 0, to end: Int64, stepMs: Int64 = 10,
                           xRate: (Double) -> Double = { _ in 0 }, reading: (Int64) -> Sample) -> [String] {
        var warnings: [String] = []
        var t = start
        while t < end {
            let time = Double(t)
            e.feedGyroscope(noisyGyroscope(t: t, x: xRate(time)))
            e.feed(reading(t))
            if let w = e.gyroscopeWarning { warnings.append(w) }
            t += stepMs
        }
        return warnings
    }

    /// The rate (rad/s) of an angle in degrees given as a function of ms, at `t`.
    func rateOf(_ angle: (Double) -> Double, at t: Double) -> Double {
        (angle(t + 5) - angle(t - 5)) / 10 * 1000 * .pi / 180
    }

    @Test("a slow wave through another orientation is followed on the accelerometer alone, not with a gyroscope")
    func gyroscopeSeesTheWaveTurning() {
        let alone = run(ms: 4000, phi: Self.wave, gyro: nil)
        #expect(alone.seen.contains(.leftUp), "accelerometer alone: \(alone.seen)")
        let fused = run(ms: 4000, phi: Self.wave)
        #expect(fused.seen == [.normal], "with the gyroscope: \(fused.seen)")
        #expect(fused.engine.fusingGyroscope)
    }

    @Test("a turn that is held is still decided with a gyroscope")
    func heldTurnIsDecided() {
        let r = run(ms: 3000, phi: { t in t < 1000 ? 0 : t < 1400 ? -90 * (t - 1000) / 400 : -90 })
        #expect(r.seen == [.normal, .leftUp], "\(r.seen)")
    }

    /// Normal for 1 s, turned to left-up in 0.4 s (the gyroscope, unless `gyro` is false,
    /// sees the turn), then held there while pushed to and fro along the screen normal
    /// (±0.3 g at 4 Hz for 3 s: the readings' elevation wobbles by ±17°, φ stays) at
    /// 100 Hz. When left-up was reported, if it was.
    func leftUpWhilePushedAlongTheNormal(gyro: Bool, tunables: EngineTunables = .default) -> Int64? {
        var e = OrientationEngine(tunables: tunables)
        let phi: (Double) -> Double = { t in t < 1000 ? 0 : t < 1400 ? -90 * (t - 1000) / 400 : -90 }
        for t in stride(from: Int64(0), to: 4400, by: 10) {
            let time = Double(t)
            if gyro {
                e.feedGyroscope(noisyGyroscope(t: t, z: rateOf(phi, at: time)))
            }
            var s = poseSample(t: t, phi: phi(time), theta: 0)
            if t >= 1400 { s.z += 0.4 * 9.81 * sin(2 * .pi * 5 * (time - 1400) / 1000) }
            e.feed(s)
            if e.orientation == .leftUp { return t }
        }
        return nil
    }

    @Test("with a gyroscope, a push along the screen normal after a turn does not hold the turn back; alone, it does")
    func pushAlongTheNormalIsNoTurn() throws {
        // The gyroscope sees that the device no longer turns, and the pushes leave φ alone.
        let fused = try #require(leftUpWhilePushedAlongTheNormal(gyro: true))
        #expect(fused <= 1400 + 300, "with the gyroscope: \(fused) ms")
        // The accelerometer alone cannot tell the wobble of its readings from a turn: it
        // waits for the stride rule (or the end of the pushes), unless the device lay still
        // just before (PickUpMs, as here: off, to show what the gyroscope adds).
        var noPickUp = EngineTunables.default
        noPickUp.pickUpMs = 0
        let alone = leftUpWhilePushedAlongTheNormal(gyro: false, tunables: noPickUp) ?? .max
        #expect(alone >= 1400 + 1000, "accelerometer alone: \(alone) ms")
    }

    /// A device held upright and still for 5 s, then bounced for 4 s (readings along
    /// gravity, alternately 2 g and 0.2 g: never calm, never at rest) without turning, at
    /// 100 Hz, with a gyroscope whose bias is `biasDegS` about the x axis (which would
    /// tip the screen back). The tilt reported at the end.
    func tiltAfterBounce(tunables: EngineTunables = .default, biasDegS: Double = 9) -> Tilt {
        var e = OrientationEngine(tunables: tunables)
        feedTurningAboutX(&e, to: 9000, xRate: { _ in biasDegS * .pi / 180 }) { t in
            poseSample(t: t, phi: 0, theta: 0, g: 9.81 * (t < 5000 ? 1 : t / 10 % 2 == 0 ? 2 : 0.2))
        }
        return e.tilt
    }

    @Test("a gyroscope's bias is learned at rest: the attitude stays true through a bounce")
    func biasIsLearnedAtRest() {
        // While bounced, the accelerometer corrects the attitude only slowly
        // (FusionSlowestMs): an unlearned bias of 20°/s tips it past 20° (tilted up), a
        // learned one does not.
        #expect(tiltAfterBounce() == .vertical)
        var unlearned = EngineTunables.default
        unlearned.gyroBiasLearnMs = 0
        #expect(tiltAfterBounce(tunables: unlearned, biasDegS: 20) == .tiltedUp)
        // An MPU-6050 may be 20°/s off by its datasheet: that too is bias.
        #expect(tiltAfterBounce(biasDegS: 20) == .vertical)
    }

    @Test("a bias beyond GyroBiasRateDegS is learned at a rest of a second: the attitude stays true through a bounce")
    func largeBiasIsLearnedAtALongRest() {
        // 40°/s about x, across gravity: more than GyroBiasRateDegS from a bias not yet
        // learned, so a short rest would take it for a turn; still for 5 s, the device
        // cannot be turning about a horizontal axis.
        #expect(tiltAfterBounce(biasDegS: 40) == .vertical)
        var never = EngineTunables.default
        never.gyroBiasLongRestMs = 0
        #expect(tiltAfterBounce(tunables: never, biasDegS: 40) != .vertical)
    }

    @Test("the explanation shows the gyroscope's bias learned so far")
    func explanationShowsTheBias() {
        // Still for 12 s (six GyroBiasLearnMs) with 9°/s about x.
        var e = OrientationEngine()
        feedTurningAboutX(&e, to: 12_000, xRate: { _ in 9 * .pi / 180 }) { poseSample(t: $0, phi: 0, theta: 0) }
        #expect(e.explanation.contains("fused with the gyroscope (bias 9.0,0.0,0.0 deg/s)"), "\(e.explanation)")
    }

    @Test("a still moment that the gyroscope sees turning teaches it no bias")
    func turningIsNotBias() {
        // Held still, then turned about x at 40°/s for 3 s while the readings keep the
        // length and direction of a still device (as a stride's still moment: the pocket
        // at the top of a step while the leg turns): learned as bias, the rate would be
        // taken away from every later turn.
        var e = OrientationEngine()
        let turn = 40 * Double.pi / 180
        feedTurningAboutX(&e, to: 4000, xRate: { $0 >= 1000 ? turn : 0 }) { t in poseSample(t: t, phi: 0, theta: 0) }
        // Then a real turn to a 45° reading posture at 40°/s under a bounce: the attitude
        // follows it only if the 40°/s was not taken for bias.
        feedTurningAboutX(&e, from: 4000, to: 6000, xRate: { $0 < 5125 ? turn : 0 }) { t in
            poseSample(t: t, phi: 0, theta: min(45, Double(t - 4000) * 0.04), g: 9.81 * (t / 10 % 2 == 0 ? 2 : 0.2))
        }
        #expect(e.tilt == .tiltedUp)
    }

    @Test("with a gyroscope, tilt follows the attitude under sustained acceleration; alone, the readings' plain average follows a bounce along gravity")
    func tiltFollowsTheAttitude() {
        // Upright and still for 2 s, then bounced (0.2 g / 2 g) and tipped back to 45° over
        // 0.5 s and held there: the accelerometer is never calm, but the bounce is along
        // gravity, and the readings' plain average (TiltFilterMs) is gravity's direction;
        // an average weighted toward the readings near 1 g (there are none) would wait.
        func tilted(gyro: Bool) -> Int64? {
            var e = OrientationEngine()
            let theta = { (t: Double) -> Double in t < 2000 ? 0 : min(45, (t - 2000) * 0.09) }
            for t in stride(from: Int64(0), to: 5000, by: 10) {
                let time = Double(t)
                if gyro {
                    // Tipping the screen back turns the device about its x axis.
                    let rate = rateOf(theta, at: time)
                    e.feedGyroscope(noisyGyroscope(t: t, x: rate))
                }
                e.feed(poseSample(t: t, phi: 0, theta: theta(time), g: 9.81 * (t < 2000 ? 1 : t / 10 % 2 == 0 ? 2 : 0.2)))
                if e.tilt == .tiltedUp { return t - 2500 }
            }
            return nil
        }
        let fused = tilted(gyro: true)
        #expect(fused.map { $0 <= 400 } == true, "with the gyroscope: \(String(describing: fused)) ms after the tip ended")
        let alone = tilted(gyro: false)
        #expect(alone.map { $0 <= 300 } == true, "accelerometer alone: \(String(describing: alone)) ms after the tip ended")
    }

    @Test("readings a swing's pull holds off gravity for moments at a time do not tip the attitude or give the gyroscope up")
    func pullDoesNotTipTheAttitude() {
        // Held upright, not turning (the gyroscope reads 0), for 2 s; then for 8 s, every
        // 0.6 s: 0.45 s of readings 1.8 g long along gravity, then 0.15 s of calm-looking
        // readings 1 g long but 30–50° back (an arm's pull at the end of a swing, never
        // still: the hand trembles). Trusted for their length alone, those readings would
        // pull the attitude back by some 30°; trusted as little as the linear
        // acceleration of the last second allows (FusionTrustDecayMs), by about 12°.
        var e = OrientationEngine()
        let warnings = feedTurningAboutX(&e, to: 10_000) { t in
            let pulled = t >= 2000 && (t - 2000) % 600 >= 450
            return t < 2000 ? poseSample(t: t, phi: 0, theta: 0)
                : pulled ? poseSample(t: t, phi: 0, theta: 40 + 10 * sin(Double(t) * 2 * .pi / 150))
                : poseSample(t: t, phi: 0, theta: 0, g: 9.81 * 1.8)
        }
        #expect(e.fusingGyroscope && warnings.isEmpty, "\(warnings)")
        #expect(e.tilt == .vertical)
    }

    @Test("a push back and forth along the screen normal does not tip the attitude: the readings' mean is gravity, their directions' mean is not")
    func pushAlongTheNormalLeavesTheAttitude() {
        // Leaned back 25° (tilted-up, 5° past the threshold) and not turning, still for
        // 2 s, then for 10 s pushed along the screen normal at 2 Hz by up to 0.9 g (a
        // phone in a back pocket, pressed and released by the thigh at every step). The
        // push averages to nothing, so the readings' mean is gravity; their directions
        // swing from 56° to −28° of elevation and back, and the mean of the directions
        // lies near 14°: an attitude corrected toward unit readings sinks to vertical.
        var e = OrientationEngine()
        let push = 0.9 * 9.81
        feedTurningAboutX(&e, to: 12_000) { t in
            let g = poseSample(t: t, phi: 0, theta: 25)
            let z = t < 2000 ? 0 : push * sin(Double(t - 2000) * 2 * .pi / 500)
            return Sample(timeMs: t, x: g.x, y: g.y, z: g.z + z)
        }
        #expect(e.fusingGyroscope)
        #expect(e.tilt == .tiltedUp)
    }

    @Test("a knock read at 100 g pulls the attitude no further than FusionPullMaxG allows")
    func knockPullsNoFurtherThanTheLimit() {
        // Upright and still, not turning; two readings 100 g long along the screen normal
        // (a knock, or a fault), then still again. Pulled in proportion to their whole
        // length, the attitude would tip some 35° back and be read as tilted up.
        func tilts(_ tunables: EngineTunables) -> Set<Tilt> {
            var e = OrientationEngine(tunables: tunables)
            var seen: Set<Tilt> = []
            for t in stride(from: Int64(0), to: 5000, by: 10) {
                let g = poseSample(t: t, phi: 0, theta: 0)
                e.feedGyroscope(noisyGyroscope(t: t))
                e.feed(t == 2000 || t == 2010 ? Sample(timeMs: t, x: g.x, y: g.y, z: 100 * 9.81) : g)
                seen.insert(e.tilt)
            }
            return seen
        }
        #expect(tilts(.default) == [.vertical])
        var unbounded = EngineTunables.default
        unbounded.fusionPullMaxG = 1000
        #expect(tilts(unbounded).contains(.tiltedUp), "premise: an unbounded pull tips the attitude")
    }

    @Test("calm moments that disagree with the gyroscope, broken by movement, do not add up to giving it up")
    func brokenDisagreementIsNotCounted() {
        // Not turning (the gyroscope reads 0) and upright; then, for 4 s, every 0.8 s:
        // 0.4 s of readings 2 g long along gravity, then 0.4 s of readings 1 g long but
        // 75° back, circling 7° around that at 5 Hz (calm to the accelerometer, never a
        // rest): a swing's pull at each end. Each calm stretch disagrees for 0.4 s, less than
        // GyroDisagreeMs; added up they would pass it.
        var e = OrientationEngine()
        let warnings = feedTurningAboutX(&e, to: 6000) { t in
            let time = Double(t)
            let pulled = t >= 2000 && (t - 2000) % 800 >= 400
            return t < 2000 ? poseSample(t: t, phi: 0, theta: 0)
                : pulled ? poseSample(t: t, phi: 27 * sin(time * 2 * .pi / 200), theta: 75 + 7 * cos(time * 2 * .pi / 200))
                : poseSample(t: t, phi: 0, theta: 0, g: 9.81 * 2)
        }
        #expect(e.fusingGyroscope && warnings.isEmpty, "\(warnings)")
    }

    @Test("a swing's ends, still to the accelerometer while the gyroscope sees the arm turn, are not taken for rests that disagree")
    func swingEndsAreNotRests() {
        // A phone swung about its x axis, ±30° once a second (the gyroscope reads the
        // turn), its readings 1.8 g along the attitude through the swing, but at each end,
        // from 60 ms before the turning point to 60 ms after, one steady 1 g reading 40°
        // beyond it (the arm's pull): a rest to the accelerometer, arriving while the
        // gyroscope still reads some 50°/s.
        var e = OrientationEngine()
        let theta = { (t: Double) -> Double in t < 2000 ? 0 : 30 * sin(2 * .pi * (t - 2000) / 1000) }
        let warnings = feedTurningAboutX(&e, to: 8000, xRate: { rateOf(theta, at: $0) }) { t in
            let time = Double(t)
            // Turning points at 2250 + 500·k ms.
            let sinceTurn = (time - 2250).truncatingRemainder(dividingBy: 500)
            let end = t >= 2250 && (sinceTurn <= 60 || sinceTurn >= 440)
            let side: Double = Int((time - 2250 + 250) / 500) % 2 == 0 ? 1 : -1
            return t < 2000 ? poseSample(t: t, phi: 0, theta: 0)
                : end ? poseSample(t: t, phi: 0, theta: side * 70)
                : poseSample(t: t, phi: 0, theta: theta(time), g: 9.81 * 1.8)
        }
        #expect(e.fusingGyroscope && warnings.isEmpty, "\(warnings)")
    }

    @Test("a turn made while running is followed though the hand rolls the phone with every step")
    func runningHandRollsThePhone() {
        // Left-up, still, for 2 s; then turned to normal over 0.3 s and run with: the
        // readings bounce between 0.6 and 1.4 g (never calm, never a rest) and the hand
        // rolls the phone ±50° about normal once every 0.7 s (the gyroscope reads it).
        // Read at each instant, the attitude leaves normal's side of the boundary with
        // every roll and the stride rule never sees a second of it; averaged, it does.
        var e = OrientationEngine()
        let phi = { (t: Double) -> Double in
            t < 2000 ? -90 : t < 2300 ? -90 + 0.3 * (t - 2000) : 50 * sin(2 * .pi * (t - 2300) / 700)
        }
        var reported: Int64?
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            let time = Double(t)
            let rate = rateOf(phi, at: time)
            e.feedGyroscope(noisyGyroscope(t: t, z: rate))
            e.feed(poseSample(t: t, phi: phi(time), theta: 0, g: 9.81 * (t < 2000 ? 1 : t / 10 % 2 == 0 ? 0.6 : 1.4)))
            if reported == nil && e.orientation == .normal { reported = t }
        }
        #expect(reported.map { $0 - 2300 <= Int64(EngineTunables.default.strideMs) + 500 } == true,
                "normal reported at \(String(describing: reported)) ms")
        #expect(e.orientation == .normal)
    }

    @Test("the attitude's average, tipped by a gyroscope's unlearned bias, commits no orientation the readings' average does not share")
    func strideNeedsTheReadingsToAgree() {
        // Held in left-up (φ −70°) and run with from the first reading: the readings along
        // gravity bounce between 0.2 and 2.5 g (trusted as little as FusionSlowestMs
        // allows; never a rest, so no bias is learned), for 10 s. The gyroscope's bias is
        // 20°/s about the screen normal (the most the MPU-6050's datasheet allows): the
        // attitude settles some 50° around, in normal's sector, and its average stays
        // there for seconds. The readings' average stays in left-up: nothing is committed.
        var e = OrientationEngine()
        var seen: Set<Orientation> = []
        for t in stride(from: Int64(0), to: 10_000, by: 10) {
            e.feedGyroscope(noisyGyroscope(t: t, z: 20 * .pi / 180))
            e.feed(poseSample(t: t, phi: -70, theta: 0, g: 9.81 * (t / 10 % 2 == 0 ? 0.2 : 2.5)))
            seen.insert(e.orientation)
        }
        #expect(e.fusingGyroscope)
        #expect(seen == [.leftUp], "reported \(seen)")
    }

    @Test("the readings' average need only lie on the attitude's side of the boundary, not past the hysteresis")
    func strideReadingsNeedOnlyShareTheSector() {
        // Left-up, still, for 2 s; turned to normal (φ −10°) over 0.3 s and run with: the
        // readings bounce between 0.6 and 1.4 g, and the arm pulls the phone toward its
        // left edge with a steady 0.4 g that does not average out, so the readings'
        // average sits at φ −30°, on normal's side of the boundary but not past the leave
        // angle from left-up. The attitude, turned by the gyroscope, is past it. The
        // readings' average is there to catch a gyroscope's errors (a third orientation, or
        // the old one): it need not pass the hysteresis the attitude has passed.
        var e = OrientationEngine()
        let phi = { (t: Double) -> Double in t < 2000 ? -90 : t < 2300 ? -90 + 80 * (t - 2000) / 300 : -10 }
        var reported: Int64?
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            let time = Double(t)
            e.feedGyroscope(noisyGyroscope(t: t, z: rateOf(phi, at: time)))
            var sample = poseSample(t: t, phi: phi(time), theta: 0, g: 9.81 * (t < 2300 ? 1 : t / 10 % 2 == 0 ? 0.6 : 1.4))
            if t >= 2300 { sample.x += 0.4 * 9.81 }
            e.feed(sample)
            if reported == nil && e.orientation == .normal { reported = t }
        }
        #expect(e.fusingGyroscope)
        #expect(reported.map { $0 - 2300 <= Int64(EngineTunables.default.strideMs) + 1000 } == true,
                "normal reported at \(String(describing: reported)) ms")
    }

    @Test("a gyroscope's unlearned bias does not tip the attitude through a long run")
    func unlearnedBiasDoesNotDriftThroughARun() {
        // A run from the first reading (never a rest, so no bias is learned): upright, not
        // turning, the readings along gravity bouncing between 0.2 and 2.5 g (trusted very
        // little) for 30 s; the gyroscope's bias 6°/s about x, which tips the screen back.
        // With the slowest correction bounded (FusionSlowestMs) the attitude settles some
        // 15° back, vertical; trusted only as the bounce allows, about 55°.
        func tiltAfterRun(_ tunables: EngineTunables) -> Tilt {
            var e = OrientationEngine(tunables: tunables)
            feedTurningAboutX(&e, to: 30_000, xRate: { _ in 6 * .pi / 180 }) { t in
                poseSample(t: t, phi: 0, theta: 0, g: 9.81 * (t / 10 % 2 == 0 ? 0.2 : 2.5))
            }
            return e.tilt
        }
        #expect(tiltAfterRun(.default) == .vertical)
        var unbounded = EngineTunables.default
        unbounded.fusionSlowestMs = 0
        #expect(tiltAfterRun(unbounded) == .tiltedUp)
    }

    /// The tilts reported after 3 s while a phone, read every `periodMs` (accelerometer
    /// and gyroscope at one tick; 10 Hz unless said), is turned about its x axis by
    /// `theta` (degrees its screen is back), its accelerometer reading `reading` degrees
    /// back (the arm's pull, or gravity) and a bounce of 0.2–2 g.
    func tiltsRead(_ theta: (Double) -> Double, reading: (Double) -> Double, periodMs: Int = 100,
                   tunables: EngineTunables = .default) -> Set<Tilt> {
        var e = OrientationEngine(tunables: tunables)
        var seen: Set<Tilt> = []
        for t in stride(from: Int64(0), to: 12_000, by: periodMs) {
            let time = Double(t)
            let rate = rateOf(theta, at: time)
            e.feedGyroscope(noisyGyroscope(t: t, x: rate))
            let g = 9.81 * (t < 2000 ? 1 : 1.1 + 0.9 * sin(time * 0.9))
            e.feed(poseSample(t: t, phi: 0, theta: reading(time), g: g))
            if t >= 3000 { seen.insert(e.tilt) }
        }
        return seen
    }

    @Test("a 10 Hz gyroscope is trusted for tilt through a slow swing, not through a run's jolts")
    func slowGyroscopeTrustedWhileSmooth() {
        // A swing, 25° ± 30° at 0.7 a second, the accelerometer reading the arm's pull
        // (always 25° back): read 14 times a swing, the gyroscope's attitude shows the
        // screen vertical at the bottom and tilted up at the top.
        let swing = { (t: Double) -> Double in t < 2000 ? 25 : 25 + 30 * sin(2 * .pi * 0.7 * (t - 2000) / 1000) }
        let pull = { (_: Double) -> Double in 25 }
        #expect(tiltsRead(swing, reading: pull) == [.vertical, .tiltedUp])
        var never = EngineTunables.default
        never.gyroSmoothRatio = 0
        #expect(tiltsRead(swing, reading: pull, tunables: never) == [.tiltedUp])
        // A run's jolts: every 350 ms the screen snaps 15° forward in 40 ms and comes back
        // over the rest of the step, always 25–40° back (tilted up). Read at 10 Hz, the
        // snaps are caught more often than they last: integrated, the readings would
        // turn the attitude forward to vertical; they are not smooth, and are not.
        let jolts = { (t: Double) -> Double in
            guard t >= 1980 else { return 40 }
            let p = (t - 1980).truncatingRemainder(dividingBy: 350)
            return p < 40 ? 40 - 15 * p / 40 : 25 + 15 * (p - 40) / 310
        }
        #expect(tiltsRead(jolts, reading: jolts) == [.tiltedUp])
        var always = EngineTunables.default
        always.gyroSmoothRatio = 10
        #expect(tiltsRead(jolts, reading: jolts, tunables: always).contains(.vertical))
    }

    @Test("read often enough to integrate (25 Hz), a gyroscope whose readings jump is not followed through a run's jolts")
    func sparseJerkyGyroscopeIsNotFollowed() {
        // A run's jolts read at 25 Hz: every 360 ms the screen snaps 15° forward in 10 ms
        // and comes back over the rest of the step, always 25–40° back (tilted up). A
        // reading in the middle of each snap counts its −1500°/s for the reading's whole
        // 40 ms: integrated, the attitude turns forward 45° a step, far beyond what the
        // accelerometer's pull, slowed by the run's bounce, can bring back. 40 ms is often
        // enough to integrate a turn, not these jolts: the readings change by more than
        // GyroSmoothRatio times their rate, and tilt reads the accelerometer. (A real run
        // in a pocket read at 25 Hz: the attitude read 10–20° more tilted up than the
        // phone was, and tilted up for up to a second while the phone was vertical.)
        let jolts = { (t: Double) -> Double in
            guard t >= 1995 else { return 40 }
            let p = (t - 1995).truncatingRemainder(dividingBy: 360)
            return p < 10 ? 40 - 15 * p / 10 : 25 + 15 * (p - 10) / 350
        }
        #expect(tiltsRead(jolts, reading: jolts, periodMs: 40) == [.tiltedUp])
        var always = EngineTunables.default
        always.gyroSmoothRatio = 10
        #expect(tiltsRead(jolts, reading: jolts, periodMs: 40, tunables: always) != [.tiltedUp])
    }

    /// Feeds, at `t`, the gyroscope turning about the screen normal at φ's rate (with a
    /// real gyroscope's noise; not when `gyro` is false), then the accelerometer's reading
    /// at φ(t) with a hand's push of `push` m/s² across the screen, toward larger φ.
    func feedPushed(_ e: inout OrientationEngine, at t: Int64, phi: (Double) -> Double, push k: Double, gyro: Bool) {
        let time = Double(t)
        if gyro {
            e.feedGyroscope(noisyGyroscope(t: t, z: rateOf(phi, at: time)))
        }
        let p = phi(time) * .pi / 180
        e.feed(Sample(timeMs: t, x: -sin(p) * 9.81 - k * cos(p), y: -cos(p) * 9.81 + k * sin(p), z: 0))
    }

    /// The orientations reported over 8 s while a phone held in left-up at φ −60° sways
    /// ±10° every 2 s, read at 10 Hz, and from 1 s on an arm's pull across the screen
    /// toward normal alternates between 0.2 and 1.1 g at every reading (mean 0.65 g:
    /// never calm, never a rest); with the gyroscope too unless `gyro` is false.
    func swayWithPull(gyro: Bool) -> [Orientation] {
        var e = OrientationEngine()
        var seen: [Orientation] = []
        let phi = { (t: Double) -> Double in -60 + 10 * sin(2 * .pi * t / 2000) }
        for t in stride(from: Int64(0), to: 8000, by: 100) {
            feedPushed(&e, at: t, phi: phi, push: t < 1000 ? 0 : 9.81 * (t / 100 % 2 == 0 ? 0.2 : 1.1), gyro: gyro)
            if seen.last != e.orientation { seen.append(e.orientation) }
        }
        return seen
    }

    @Test("read at 10 Hz, a smoothly turning gyroscope's attitude must agree before the stride rule follows a pull")
    func slowGyroscopeAttitudeMustAgreeWithTheStride() {
        // The readings' second-long average is tipped 33° by the pull, past normal's
        // leave angle, and reads 1.19 g: alone, the stride rule follows it. The attitude,
        // which the readings pull each by its direction alone (the long ones no more than
        // the short), stays on left-up's side: with the gyroscope, nothing is committed.
        #expect(swayWithPull(gyro: false) == [.leftUp, .normal])
        #expect(swayWithPull(gyro: true) == [.leftUp])
    }

    @Test("read at 10 Hz, a gyroscope that sees the device shaken holds tilt's calm")
    func jerkyGyroscopeHoldsTiltCalm() {
        // 10 Hz: upright, then 35° back with readings calm to the accelerometer (±6 % in
        // length: never a rest) while the gyroscope reads ±800°/s at every other reading
        // (a shake, not smooth enough to integrate): 8.9 times GyroCalmRateDegS, beyond
        // tilt's limit of 6, and a tilt must stand TiltSettleMs after the last such
        // reading. The tilt waits until the shaking stops (or the stride estimate, a second
        // and a half after the lean, reads it).
        var e = OrientationEngine()
        var t: Int64 = 0
        var tilted: Int64?
        while t < 6000 {
            let n = Int(t / 100)
            let shaking = t >= 2000 && t < 3500
            let rate = shaking && n % 2 == 0 ? (n % 4 == 0 ? 1 : -1) * 800 * Double.pi / 180 : 0.002 * Double(n % 3)
            e.feedGyroscope(GyroscopeSample(timeMs: t, x: rate, y: 0.001 * Double(n % 2), z: 0))
            e.feed(poseSample(t: t, phi: 0, theta: t < 2000 ? 0 : 35, g: 9.81 * [1.0, 1.06, 1.0, 0.94][n % 4]))
            if tilted == nil && e.tilt == .tiltedUp { tilted = t }
            t += 100
        }
        #expect(tilted.map { $0 >= 3500 } == true, "tilted-up at \(String(describing: tilted)) ms")
    }

    /// When normal was reported after a turn from left-up to φ −21° (9° past the leave
    /// angle, clear of the edge) made between 2 and 2.3 s at 100 Hz, after which a hand
    /// pushes the phone sideways toward left-up at 0.04 g: the readings sit 2.3° nearer the
    /// boundary, at the edge (`EdgeDeg`). With the gyroscope too unless `gyro` is false.
    func turnPushedTowardTheEdge(gyro: Bool) -> Int64? {
        var e = OrientationEngine()
        let phi = { (t: Double) -> Double in t < 2000 ? -90 : t < 2300 ? -90 + 69 * (t - 2000) / 300 : -21 }
        for t in stride(from: Int64(0), to: 5000, by: 10) {
            feedPushed(&e, at: t, phi: phi, push: t < 2300 ? 0 : -0.04 * 9.81, gyro: gyro)
            if e.orientation == .normal { return t }
        }
        return nil
    }

    @Test("with a gyroscope, the edge is judged where the attitude is: readings pushed toward the boundary do not hold a clear turn back")
    func edgeIsJudgedOnTheAttitude() throws {
        let alone = try #require(turnPushedTowardTheEdge(gyro: false))
        let fused = try #require(turnPushedTowardTheEdge(gyro: true))
        // Alone, the readings are at the edge: EdgeSettleMs. With the gyroscope, the
        // attitude reached −21° with the turn and the readings pull it back only over
        // FusionCorrectionMs: OrientationSettleMs, and calm.
        #expect(alone - 2300 >= 200, "alone after \(alone - 2300) ms")
        #expect(fused + 50 <= alone, "gyroscope after \(fused - 2300) ms, alone after \(alone - 2300) ms")
    }

    /// The orientations reported over 5 s: right-up (φ 80°), turned by 1.5 s to φ 33°
    /// (3° short of where right-up is left toward normal, 30°) and held there; from 3 s a
    /// hand pushes it across the screen toward normal, 0 and 0.2 g by turns (the readings
    /// 0° and 11° past the device, 27.4° on average: past the leave angle, calm, never a
    /// rest); with the gyroscope, which reads no turn, unless `gyro` is false. The
    /// attitude's pull toward the readings is slowed (`FusionCorrectionMs`) so that it
    /// stays where the gyroscope put it for the push's two seconds.
    func pushedPastTheLeaveAngle(gyro: Bool) -> (seen: [Orientation], explained: Bool) {
        var t = EngineTunables.default
        t.fusionCorrectionMs = 10_000
        t.fusionSlowestMs = 10_000
        var e = OrientationEngine(tunables: t)
        var seen: [Orientation] = []
        var explained = false
        let phi = { (t: Double) -> Double in t < 1000 ? 80 : t < 1500 ? 80 - 47 * (t - 1000) / 500 : 33 }
        for t in stride(from: Int64(0), to: 5000, by: 10) {
            feedPushed(&e, at: t, phi: phi, push: t >= 3000 && t / 10 % 2 == 0 ? -0.2 * 9.81 : 0, gyro: gyro)
            if seen.last != e.orientation { seen.append(e.orientation) }
            if e.explanation.contains("proposing normal") && e.explanation.contains("(not the attitude)") { explained = true }
        }
        return (seen, explained)
    }

    @Test("with a gyroscope, calm commits only an orientation the attitude proposes too: a hand's push tips the readings alone")
    func calmNeedsTheAttitudesAgreement() {
        // Alone, the readings are all there is: a push that lasts is a turn.
        #expect(pushedPastTheLeaveAngle(gyro: false).seen == [.rightUp, .normal])
        // The gyroscope reads no turn: the device is where it was, short of the leave
        // angle, and the readings' average is tipped by force (at the ear, a walk's sway
        // held a phone 1-3° past it for a quarter of a second, and normal was committed).
        let fused = pushedPastTheLeaveAngle(gyro: true)
        #expect(fused.seen == [.rightUp])
        // `replay --explain` says what holds the proposal.
        #expect(fused.explained)
    }

    /// When left-up was reported, in ms after a hand's shaking stopped: normal, then turned
    /// to left-up between 1 and 1.3 s at 100 Hz (with the gyroscope unless `gyro` is
    /// false), then shaken across the screen without a turn (±`amplitude` g, the sign
    /// flipping at every reading) until `end` ms, then held still.
    func leftUpAfterShaking(_ tunables: EngineTunables = .default, gyro: Bool = true, amplitude: Double = 0.4,
                            until end: Int64 = 1500) -> Int64? {
        var e = OrientationEngine(tunables: tunables)
        let phi = { (t: Double) -> Double in t < 1000 ? 0 : t < 1300 ? -90 * (t - 1000) / 300 : -90 }
        for t in stride(from: Int64(0), to: 3000, by: 10) {
            let shake = t >= 1300 && t < end ? amplitude * 9.81 * (t / 10 % 2 == 0 ? 1 : -1) : 0
            feedPushed(&e, at: t, phi: phi, push: shake, gyro: gyro)
            if e.orientation == .leftUp { return t - end }
        }
        return nil
    }

    @Test("with a gyroscope, calm comes a few readings after a shake: the turning is read, not bridged")
    func calmHasAShortMemoryWithAGyroscope() throws {
        // ±0.4 g: about twice what calm allows.
        let fused = try #require(leftUpAfterShaking())
        #expect(fused <= 60, "left-up \(fused) ms after the shaking")
        // With the accelerometer's memory, a shake twice calm holds calm for
        // DisturbanceDecayMs·ln 2 after it.
        var long = EngineTunables.default
        long.gyroDisturbanceDecayMs = long.disturbanceDecayMs
        let bridged = try #require(leftUpAfterShaking(long))
        #expect(bridged >= fused + 50, "with the longer memory \(bridged) ms, with the short one \(fused) ms")
    }

    @Test("with a gyroscope, a hand's jolts without a turn (settling a phone into its pose) do not hold the turn back")
    func joltsAreNoTurnWithAGyroscope() throws {
        // Jolted at ±0.22 g until 2 s: the readings 12° either side of where they settle,
        // their length 1.02 g. The gyroscope reads no turn: the 12° is sideways force,
        // within GyroCalmAngleDeg, and the turn is committed while the hand still jolts.
        let jolts = { (t: EngineTunables, gyro: Bool) in self.leftUpAfterShaking(t, gyro: gyro, amplitude: 0.22, until: 2000) }
        let fused = try #require(jolts(.default, true))
        #expect(fused <= -400, "left-up \(fused) ms after the jolts")
        // Alone, 12° from the estimate may be a turn still under way (CalmAngleDeg), and
        // so it is with the gyroscope if its angle counts as much. (Unless the device lay
        // still just before, PickUpMs: off here, to show what the gyroscope adds.)
        var noPickUp = EngineTunables.default
        noPickUp.pickUpMs = 0
        let alone = try #require(jolts(noPickUp, false))
        #expect(alone >= 0, "alone, left-up \(alone) ms after the jolts")
        var strict = EngineTunables.default
        strict.gyroCalmAngleDeg = strict.calmAngleDeg
        let fusedStrict = try #require(jolts(strict, true))
        #expect(fusedStrict >= 0, "with CalmAngleDeg, left-up \(fusedStrict) ms after the jolts")
    }

    /// When right-up was reported, in ms: normal and still for 2 s at 10 Hz, then readings
    /// that show right-up leaned back 58° (beyond CalmElevationDeg: only a rest decides
    /// there) and do not change, while the gyroscope reads the device turning at
    /// `turningDegS` about its x axis until 3 s, then still. (No pick-up: read at 10 Hz the
    /// gyroscope is not integrated, and the pick-up's allowance would take the pose on
    /// calm, which a turn at 60°/s is; this is about the rest.)
    func rightUpAtRestWhileTurning(_ turningDegS: Double) -> Int64? {
        var tunables = EngineTunables.default
        tunables.pickUpMs = 0
        var e = OrientationEngine(tunables: tunables)
        feedTurningAboutX(&e, to: 2000, stepMs: 100) { poseSample(t: $0, phi: 0, theta: 0) }
        var t: Int64 = 2000
        while t < 4000 {
            feedTurningAboutX(&e, from: t, to: t + 100, stepMs: 100,
                              xRate: { $0 < 3000 ? turningDegS * .pi / 180 : 0 }) { poseSample(t: $0, phi: 90, theta: 58) }
            if e.orientation == .rightUp { return t }
            t += 100
        }
        return nil
    }

    @Test("readings that agree while the gyroscope reads the device turning are no rest")
    func restNeedsTheGyroscopeStill() throws {
        // Still to the gyroscope, the readings' rest commits at once.
        let still = try #require(rightUpAtRestWhileTurning(0))
        #expect(still <= 2300, "right-up at \(still) ms")
        // Turning at 60°/s (a figure-eight read at 10 Hz, each reading its interval's mean,
        // agreed two readings in a row), the rest counts from the gyroscope's last turn.
        let turning = try #require(rightUpAtRestWhileTurning(60))
        #expect(turning >= 3000 && turning <= 3300, "right-up at \(turning) ms")
    }

    @Test("a stuck gyroscope is given up with one warning, and the accelerometer decides alone")
    func stuckGyroscopeIsGivenUp() {
        var e = OrientationEngine()
        var warnings: [String] = []
        var seen: [Orientation] = []
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            e.feedGyroscope(GyroscopeSample(timeMs: t, x: 0.01, y: -0.02, z: 0.03))
            e.feed(poseSample(t: t, phi: t < 4000 ? 0 : -90, theta: 0))
            if seen.last != e.orientation { seen.append(e.orientation) }
            if let w = e.gyroscopeWarning { warnings.append(w) }
        }
        let r = (engine: e, seen: seen, warnings: warnings)
        #expect(r.engine.gyroscopeRejected && !r.engine.fusingGyroscope)
        #expect(r.warnings.count == 1 && r.warnings[0].contains("stuck"), "\(r.warnings)")
        #expect(r.seen == [.normal, .leftUp])
    }

    @Test("degrees reported as radians (57 times too fast) disagree with the accelerometer: given up")
    func unitErrorIsCaught() {
        // Slow quarter turns back and forth (30°/s: 1700°/s reported, within range), each
        // held: the gyroscope's up vector overshoots every one of them.
        let turns = { (t: Double) -> Double in
            let k = Int(t / 5000), u = (t - Double(k) * 5000) / 3000
            let from = k % 2 == 0 ? 0.0 : -90, to = -90 - from
            return from + (to - from) * min(1, u)
        }
        let r = run(ms: 20000, phi: turns) { t, rate in GyroscopeSample(timeMs: t, x: 0, y: 0, z: rate * 180 / .pi) }
        #expect(r.engine.gyroscopeRejected, "\(r.warnings)")
        #expect(r.warnings.count == 1 && r.warnings[0].contains("disagrees"), "\(r.warnings)")
        #expect(r.seen == [.normal, .leftUp, .normal, .leftUp, .normal], "\(r.seen)")
        // The same turns with a right gyroscope: used throughout.
        let right = run(ms: 20000, phi: turns)
        #expect(!right.engine.gyroscopeRejected && right.warnings.isEmpty, "\(right.warnings)")
    }

    @Test("a gyroscope that falls silent is not fused until it sends again")
    func silentGyroscopeIsNotFused() {
        var e = OrientationEngine()
        for t in stride(from: Int64(0), to: 1000, by: 10) {
            e.feedGyroscope(GyroscopeSample(timeMs: t, x: 0.001 * Double(t % 3), y: 0, z: 0))
            e.feed(poseSample(t: t, phi: 0, theta: 0))
        }
        #expect(e.fusingGyroscope)
        for t in stride(from: Int64(1000), to: 1500, by: 10) { e.feed(poseSample(t: t, phi: 0, theta: 0)) }
        #expect(!e.fusingGyroscope && !e.gyroscopeRejected)
        e.feedGyroscope(GyroscopeSample(timeMs: 1500, x: 0.002, y: 0, z: 0))
        e.feed(poseSample(t: 1500, phi: 0, theta: 0))
        #expect(e.fusingGyroscope)
    }

    @Test("a gyroscope's first reading after a silence is not applied to the time it was silent")
    func resumedGyroscopeStartsAfresh() {
        // Upright and still at 100 Hz; the gyroscope silent from 2 to 2.6 s (beyond
        // GyroTimeoutMs), then one jolt of 6 rad/s about x and still again. Applied over
        // the silence (up to the timeout), the jolt would tip the attitude by some 86°.
        var e = OrientationEngine()
        var tilts: Set<Tilt> = []
        for t in stride(from: Int64(0), to: 4000, by: 10) {
            if t < 2000 || t >= 2600 {
                let jolt = t == 2600 ? 6.0 : 0
                e.feedGyroscope(noisyGyroscope(t: t, x: jolt))
            }
            e.feed(poseSample(t: t, phi: 0, theta: 0))
            tilts.insert(e.tilt)
        }
        #expect(e.fusingGyroscope)
        #expect(tilts == [.vertical], "\(tilts)")
    }

    /// The tilts reported after the gyroscope's silence: upright, the screen pitching ±15°
    /// at 1.4 Hz (the gyroscope reads it) while the readings are pushed along the screen
    /// normal by ±1 g at 2.8 Hz (their elevation swings by ±45° about the device's, the
    /// push averaging out), from 1 s to 9 s; the gyroscope silent for 0.6 s from
    /// `silenceMs`.
    func tiltsAfterASilenceInARun(silenceMs: Int64) -> Set<Tilt> {
        var e = OrientationEngine()
        var tilts: Set<Tilt> = []
        let theta = { (t: Double) -> Double in t < 1000 ? 0 : 15 * sin(2 * .pi * 1.4 * (t - 1000) / 1000) }
        for t in stride(from: Int64(0), to: 9000, by: 10) {
            let time = Double(t)
            if t < silenceMs || t >= silenceMs + 600 {
                e.feedGyroscope(noisyGyroscope(t: t, x: rateOf(theta, at: time)))
            }
            var s = poseSample(t: t, phi: 0, theta: theta(time))
            if t >= 1000 { s.z += 9.81 * sin(2 * .pi * 2.8 * (time - 1000) / 1000) }
            e.feed(s)
            if t >= silenceMs { tilts.insert(e.tilt) }
        }
        return tilts
    }

    @Test("through a gyroscope's silence in a run the attitude is kept, not restarted from the readings of the moment")
    func attitudeIsKeptThroughASilence() {
        // Restarted from the readings' estimate of the moment, the attitude is 20–40° off,
        // and tilt, which follows it, reads tilted-up or tilted-down for seconds.
        for silence: Int64 in [5000, 5150] {
            #expect(tiltsAfterASilenceInARun(silenceMs: silence) == [.vertical], "silence from \(silence) ms")
        }
    }

    @Test("with a gyroscope, the stride rule follows no average the arm's pull lengthens past 1 g")
    func pulledStrideAverageIsNoGravity() {
        // Held in normal at φ −25°, rolled ±35° at 1.4 Hz, with readings pulled across the
        // screen toward left-up by 1.2 g on average (and bouncing): their average tips 50°
        // into left-up and reads 1.5 g. Over seconds the attitude, corrected toward the
        // readings, drifts the same way; neither is gravity.
        var e = OrientationEngine()
        var seen: Set<Orientation> = []
        let phi = { (t: Double) -> Double in t < 2000 ? -25 : -25 + 35 * sin(2 * .pi * 1.4 * (t - 2000) / 1000) }
        for t in stride(from: Int64(0), to: 20_000, by: 10) {
            let time = Double(t)
            let pull = t < 2000 ? 0 : 1.2 * 9.81 * (1 + 0.5 * sin(2 * .pi * 2.8 * (time - 2000) / 1000))
            feedPushed(&e, at: t, phi: phi, push: -pull, gyro: true)
            seen.insert(e.orientation)
        }
        #expect(seen == [.normal], "\(seen)")
    }

    @Test("non-finite, saturated and out-of-order readings are ignored with one warning each")
    func badReadingsAreIgnored() {
        var e = OrientationEngine()
        var warnings: [String] = []
        func take() { if let w = e.gyroscopeWarning { warnings.append(w) } }
        e.feed(poseSample(t: 0, phi: 0, theta: 0))
        e.feedGyroscope(GyroscopeSample(timeMs: 10, x: 0.01, y: 0, z: 0))
        for _ in 0..<3 {
            e.feedGyroscope(GyroscopeSample(timeMs: 20, x: .nan, y: 0, z: 0)); take()
            e.feedGyroscope(GyroscopeSample(timeMs: 30, x: 1e9, y: 0, z: 0)); take()
            e.feedGyroscope(GyroscopeSample(timeMs: 5, x: 0.01, y: 0, z: 0)); take()
        }
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.contains("not finite") } && warnings.contains { $0.contains("saturated") }
                && warnings.contains { $0.contains("out of time order") }, "\(warnings)")
        e.feed(poseSample(t: 40, phi: 0, theta: 0))
        #expect(e.fusingGyroscope && !e.gyroscopeRejected && e.orientation == .normal)
    }

    /// 40 rad/s is 2290°/s, past GyroMaxRateDegS (a ±2000°/s part pinned at its full
    /// scale, or a unit error); 1e9 an absurd value.
    @Test("a gyroscope that reads nothing but saturated or non-finite readings for GyroStuckMs is given up", arguments: [40, 1e9, Double.nan])
    func onlyUnusableReadingsGiveTheGyroscopeUp(bad: Double) {
        var e = OrientationEngine()
        var warnings: [String] = []
        e.feed(poseSample(t: 0, phi: 0, theta: 0))
        e.feedGyroscope(noisyGyroscope(t: 0))
        // Short of GyroStuckMs, then a usable reading: kept. Then unusable all along: not.
        for t in stride(from: Int64(10), through: 4000, by: 10) {
            if t == 1990 { e.feedGyroscope(noisyGyroscope(t: t)) } else {
                e.feedGyroscope(GyroscopeSample(timeMs: t, x: bad, y: 0, z: 0))
            }
            e.feed(poseSample(t: t, phi: 0, theta: 0))
            if let w = e.gyroscopeWarning { warnings.append(w) }
            if t == 3980 { #expect(!e.gyroscopeRejected, "rejected before GyroStuckMs of unusable readings") }
        }
        #expect(e.gyroscopeRejected && !e.fusingGyroscope)
        #expect(warnings.count == 2 && warnings.last?.contains("no usable reading") == true, "\(warnings)")
    }

    /// A turn to left-up at 2 s, held, while the readings bounce between 0.6 and 1.4 g
    /// (never calm, never at rest), at 100 Hz; the gyroscope read every `gyroEveryMs` ms,
    /// or not at all. When left-up was reported, ms after the turn ended.
    func turnWhileBouncing(gyroEveryMs: Int64?) -> Int64? {
        var e = OrientationEngine()
        let phi = { (t: Double) -> Double in t < 2000 ? 0 : t < 2300 ? -0.3 * (t - 2000) : -90 }
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            let time = Double(t)
            if let every = gyroEveryMs, t % every == 0 {
                let rate = rateOf(phi, at: time)
                e.feedGyroscope(noisyGyroscope(t: t, z: rate))
            }
            let g = 9.81 * (t < 1000 ? 1 : t / 10 % 2 == 0 ? 0.6 : 1.4)
            e.feed(poseSample(t: t, phi: phi(time), theta: 0, g: g))
            if e.orientation == .leftUp { return t - 2300 }
        }
        return nil
    }

    @Test("a gyroscope read often enough gives the stride rule the real attitude: a turn under sustained acceleration is decided sooner")
    func strideRuleOnTheGyroscopesUpVector() throws {
        let alone = try #require(turnWhileBouncing(gyroEveryMs: nil))
        let fused = try #require(turnWhileBouncing(gyroEveryMs: 10))
        // StrideMs of the averaged attitude, which lags the turn by some of its time
        // constant.
        let t = EngineTunables.default
        #expect(fused <= Int64(t.strideMs + t.attitudeStrideFilterMs), "with the gyroscope after \(fused) ms")
        #expect(fused + 300 < alone, "gyroscope \(fused) ms, accelerometer alone \(alone) ms")
        // Read at 10 Hz, the turn is smooth for its readings (GyroSmoothRatio): its
        // attitude is followed too, and the readings' half-second average agrees sooner
        // than the accelerometer's stride estimate alone reads the turn.
        let slow = try #require(turnWhileBouncing(gyroEveryMs: 100))
        #expect(slow + 300 < alone, "gyroscope at 10 Hz \(slow) ms, accelerometer alone \(alone) ms")
    }
}

extension GyroscopeTests {
    /// Normal; then the arm swings the phone to φ −75° in 200 ms, where it stops for
    /// `holdMs` (the swing's turning point), and back in 200 ms.
    static func turningPoint(holdMs: Double) -> (Double) -> Double {
        { t in
            let a = t - 1000
            switch a {
            case ..<0: return 0
            case ..<200: return -75 * a / 200
            case ..<(200 + holdMs): return -75
            case ..<(400 + holdMs): return -75 + 75 * (a - 200 - holdMs) / 200
            default: return 0
            }
        }
    }

    @Test("a swing's turning point, still for 80 ms past the line, is not committed: a proposal stands OrientationSettleMs first")
    func turningPointIsNoPose() {
        // The gyroscope sees the phone stop at once, so calm has no wait of its own: only
        // the proposal's settle time tells a turning point from a pose (a swinging arm in
        // the dev set, committed to left-up for half a minute without it).
        let swing = run(ms: 3000, phi: Self.turningPoint(holdMs: 80))
        #expect(swing.seen == [.normal], "\(swing.seen)")
        // Held longer than the settle time, it is a pose, followed there and back.
        let pose = run(ms: 3000, phi: Self.turningPoint(holdMs: 150))
        #expect(pose.seen == [.normal, .leftUp, .normal], "\(pose.seen)")
    }
}
