import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine

/// A device picked up after lying still and set into a pose is turned while the hand
/// still shakes it (`PickUpRestMs`, `PickUpMs`); a device moved about without a pause is
/// not.
@Suite("Pick-up")
struct PickUpTests {
    /// 100 Hz from t = 0: upright in normal, either still (`stillBefore`) or shaken by a
    /// hand (±20° every reading, never a rest) until 1.5 s; turned to right-up in 300 ms;
    /// there shaken for 1 s (elevation ±20° and 0.9/1.1 g by turns: never calm, never a
    /// rest), then held still. When right-up is first reported, counted from the turn's
    /// end (1.8 s); nil if never. `length`, if given, replaces the lengths of the readings
    /// while shaken (in g, from the time since the turn's end); `turnLength` is the length
    /// of the turn's readings (in g); `periodMs` the time between readings (the shaking
    /// turns at every reading).
    func placed(stillBefore: Bool, tunables: EngineTunables = .default, periodMs: Int64 = 10,
                phaseMs: Int64 = 0, delivery: SensorDelivery = .stream, theta: Double = 10,
                shakeDeg: Double = 20, lengths: (Double, Double) = (1.1, 0.9),
                length: ((Int64) -> Double)? = nil, turnLength: Double = 1) -> Int64? {
        var e = OrientationEngine(tunables: tunables, delivery: delivery)
        let turnEnd: Int64 = 1800
        for t in stride(from: phaseMs, to: 4000, by: Int(periodMs)) {
            let even = (t / periodMs) % 2 == 0
            let shake = even ? shakeDeg : -shakeDeg
            let sample: Sample
            switch t {
            case ..<1500:
                sample = poseSample(t: t, phi: 0, theta: 10 + (stillBefore ? 0 : shake))
            case ..<turnEnd:
                let k = Double(t - 1500) / 300
                sample = poseSample(t: t, phi: 90 * k, theta: 10 + (theta - 10) * k, g: 9.81 * turnLength)
            case ..<(turnEnd + 1000):
                sample = poseSample(t: t, phi: 90, theta: theta + shake,
                                    g: 9.81 * (length?(t - turnEnd) ?? (even ? lengths.0 : lengths.1)))
            default:
                sample = poseSample(t: t, phi: 90, theta: theta)
            }
            e.feed(sample)
            if e.orientation == .rightUp { return t - turnEnd }
        }
        return nil
    }

    @Test("a pose shaken into place just after a rest is turned at once; after a shaking, once it is still")
    func pickUpAllowsTheShaking() throws {
        for delivery in [SensorDelivery.stream, .onChange] {
            let picked = try #require(placed(stillBefore: true, delivery: delivery))
            #expect(picked <= 250, "\(delivery): \(picked)")
            // Without the rule, calm waits for the shaking to end (and a rest decides).
            var off = EngineTunables.default
            off.pickUpMs = 0
            let waited = try #require(placed(stillBefore: true, tunables: off, delivery: delivery))
            #expect(waited >= 1000, "\(delivery), without the rule: \(waited)")
            // Moved about before the turn, with no rest: no pick-up.
            let shaken = try #require(placed(stillBefore: false, delivery: delivery))
            #expect(shaken >= 1000, "\(delivery), shaken before: \(shaken)")
        }
    }

    @Test("a gate that opens less than half an interval after a reading is open at it (PickUpGateToleranceMs)")
    func aGateIsOpenAtTheReadingNearest() throws {
        // A pose lowered into place, read at 25 Hz from every phase of the poll: the
        // readings are 0.6 g long until 200 ms after the turn's end. The first reading at
        // 1 g says the force is over, but the length's average, decaying from it, crosses
        // its limit a few ms later, between two readings. Open only at its time, that gate
        // holds every such pose a whole interval more.
        func latencies(_ tunables: EngineTunables) throws -> [Int64] {
            try (0..<40).map { phase in
                try #require(placed(stillBefore: true, tunables: tunables, periodMs: 40, phaseMs: Int64(phase),
                                    length: { $0 < 200 ? 0.6 : ($0 / 40) % 2 == 0 ? 1.1 : 0.9 }))
            }
        }
        var exact = EngineTunables.default
        exact.pickUpGateToleranceMs = 0
        let nearest = try latencies(.default), next = try latencies(exact)
        // Taken at the first reading at 1 g, whatever the phase (200–239 ms after the turn).
        #expect(nearest.allSatisfy { (200..<240).contains($0) }, "\(nearest)")
        #expect(zip(nearest, next).allSatisfy { $0 + 40 == $1 }, "\(nearest) against \(next)")
    }

    @Test("a pose turned briskly into place is taken once the hand stops, not while the estimate catches up")
    func theEstimateCatchingUpIsNoTurn() throws {
        // The quarter turn of `placed` (300°/s, stopped at once): the gravity estimate lags
        // it by its filter's time and closes that lag at the hand's last speed, a turning
        // that is the estimate's, not the device's. PickUpTurnDegS sits below the half
        // turn it is for (180°/s) and above that catch-up's tail.
        let picked = try #require(placed(stillBefore: true))
        #expect(picked <= 150, "\(picked)")
        var strict = EngineTunables.default
        strict.pickUpTurnDegS = 120
        let held = try #require(placed(stillBefore: true, tunables: strict))
        #expect(held > 150, "the premise: a limit within the catch-up's tail holds the pose (\(held))")
    }

    @Test("a pose lowered into place is taken once the readings' plain mean stops turning")
    func theTurnGateReadsThePlainMean() throws {
        // Lowered as it turns, the readings are 0.8 g long until 100 ms after the turn: the
        // estimate weighted toward 1 g takes them in at a fraction of its pace and is still
        // catching up when the hand has stopped, while the plain mean, which the pick-up's
        // proposal and depth read, has arrived.
        let picked = try #require(placed(stillBefore: true, length: { $0 < 100 ? 0.8 : ($0 / 10) % 2 == 0 ? 1.1 : 0.9 },
                                         turnLength: 0.8))
        #expect(picked <= 150, "\(picked)")
    }

    @Test("a pose leaned back beyond CalmElevationDeg is picked up too, with less allowed toward flat")
    func pickUpNearFlat() throws {
        // Leaned back 55°: calm never decides there (CalmElevationDeg), a pick-up does.
        let leaned = try #require(placed(stillBefore: true, theta: 55, shakeDeg: 8))
        #expect(leaned <= 250, "\(leaned)")
        var off = EngineTunables.default
        off.pickUpMs = 0
        let waited = try #require(placed(stillBefore: true, tunables: off, theta: 55, shakeDeg: 8))
        #expect(waited >= 1000, "without the rule: \(waited)")
        // The same shaking that is allowed upright (±28°) is too much at 55°, where an
        // error moves φ 1.7 times as far: the allowance shrinks with cos θ.
        let upright = try #require(placed(stillBefore: true, theta: 10, shakeDeg: 28))
        #expect(upright <= 250, "\(upright)")
        let shaken = try #require(placed(stillBefore: true, theta: 55, shakeDeg: 28))
        #expect(shaken >= 1000, "\(shaken)")
    }

    @Test("only the direction is excused: a pose bounced along gravity waits for the bouncing to end")
    func lengthIsNotExcused() throws {
        // Held in right-up without a turn of the readings, pushed along gravity for the
        // second (1.3 and 1.4 g by turns: too unsteady for a rest that would make it the
        // new 1 g): linear acceleration 1.4 times calm however it is averaged, no jolt.
        let pushed = try #require(placed(stillBefore: true, shakeDeg: 0, lengths: (1.3, 1.4)))
        #expect(pushed >= 1000, "\(pushed)")
        // The same turn shaken in direction instead is taken at once.
        let shaken = try #require(placed(stillBefore: true, shakeDeg: 20, lengths: (1.0, 1.0)))
        #expect(shaken <= 250, "\(shaken)")
    }

    @Test("a knock, one or two readings, does not end a pick-up (LengthFilterMs)")
    func aKnockIsNoJolt() throws {
        // Shaken into right-up as usual, with one reading of 2.1 g (a knock: a jolt, read
        // alone) and, at the turn's end, two of 1.5 g (the hand stopping the device).
        let knocked = { (t: Int64) -> Double in
            switch t {
            case 0, 10: 1.5
            case 60: 2.1
            default: t % 20 == 0 ? 1.1 : 0.9
            }
        }
        let taken = try #require(placed(stillBefore: true, length: knocked))
        #expect(taken <= 250, "\(taken)")
        var alone = EngineTunables.default
        alone.lengthFilterMs = 0
        let ended = try #require(placed(stillBefore: true, tunables: alone, length: knocked))
        #expect(ended >= 1000, "each reading alone, the knock ends the pick-up: \(ended)")
    }

    @Test("a knock read alone at 25 Hz is still a knock: one reading stands for an instant, not its whole interval")
    func aSparseKnockIsNoJolt() throws {
        // The same knock (2 g, one reading) at 25 Hz: the reading is 40 ms after the one
        // before, longer than LengthFilterMs, yet what it measured lasted no longer than
        // at 100 Hz. Weighed by its whole interval it would count nearly in full (0.8),
        // a jolt beyond PickUpJoltG that ends the pick-up.
        func knocked(_ knock: ClosedRange<Int64>) -> (Int64) -> Double {
            { t in knock.contains(t) ? 2.0 : (t / 40) % 2 == 0 ? 1.1 : 0.9 }
        }
        let taken = try #require(placed(stillBefore: true, periodMs: 40, length: knocked(80...80)))
        #expect(taken <= 250, "\(taken)")
        // The premise: two such readings in a row are a shove, and end it.
        let shoved = try #require(placed(stillBefore: true, periodMs: 40, length: knocked(80...120)))
        #expect(shoved >= 1000, "\(shoved)")
    }

    @Test("after a gap, a calmer reading says the force is over: at 10 Hz a pick-up waits for no reading more")
    func aCalmerReadingEndsTheForce() throws {
        // Shaken into right-up at 10 Hz, the hand's stop read as two readings of 1.5 g and
        // then one of 1.2 g (within AccelerationGateG): the force the 1.5 g readings saw is
        // 100 ms old, and the 1.2 g reading is what is left of it. Counted for only
        // LengthFilterMs, as a reading of new force is, it would leave the average beyond
        // calm until the next reading, 100 ms later.
        let stopped = { (t: Int64) -> Double in t == 0 || t == 100 ? 1.5 : t == 200 ? 1.2 : 1.0 }
        let taken = try #require(placed(stillBefore: true, periodMs: 100, shakeDeg: 10, length: stopped))
        #expect(taken <= 200, "\(taken)")
    }

    @Test("the explanation shows a pick-up's allowance and when it applies")
    func explanationShowsTheAllowance() {
        // Still, then turned to right-up at 450°/s and shaken there: while the estimate
        // turns, the allowance waits for the turning to end; then, pushed along gravity
        // for 50 ms (1.4 g), it applies from when that push is forgotten.
        var e = OrientationEngine()
        var seen: [String] = []
        for t in stride(from: Int64(0), through: 2500, by: 10) where e.orientation != .rightUp {
            let phi = t < 1500 ? 0 : min(90, Double(t - 1500) * 0.45)
            let pushed = (1830..<1880).contains(t)
            e.feed(poseSample(t: t, phi: phi, theta: 10 + (t >= 1700 ? ((t / 10) % 2 == 0 ? 12 : -12) : 0),
                              g: pushed ? 1.4 * 9.81 : 9.81))
            if e.explanation.contains("right-up allowed") { seen.append(e.explanation) }
        }
        #expect(e.orientation == .rightUp)
        #expect(seen.contains { $0.contains("once it stops turning") }, "\(seen)")
        #expect(seen.contains { $0.range(of: #"allowed [0-9.]+ from [0-9]+ms"#, options: .regularExpression) != nil }, "\(seen)")
        // And what it reads: the readings' plain mean, past right-up's leave angle (60°)
        // while it proposes, and near 90° by the end.
        #expect(seen.allSatisfy { $0.range(of: #"picking-up \(mean phi=[6-9][0-9]\.[0-9]deg\)"#, options: .regularExpression) != nil },
                "\(seen)")
        #expect(seen.last?.range(of: #"mean phi=(8[5-9]|9[0-5])\.[0-9]deg"#, options: .regularExpression) != nil,
                "\(String(describing: seen.last))")
    }

    @Test("a pose shaken along a slant is read from the readings' plain mean, which is gravity")
    func theMeanOfAShakeIsGravity() throws {
        // Turned into right-up just after a rest and shaken there for a second at 10 Hz,
        // 0.6 g each way along a line in the screen's plane slanted 17° against gravity
        // (toward normal's edge and up): the readings of one half of each shake are 1 g
        // long and lean 35° toward normal, those of the other half 1.3 g long and lean
        // the other way. Their mean is gravity, deep in right-up. An estimate weighted
        // toward the readings near 1 g leans toward normal's edge, where the allowance is
        // narrower than the shaking: it waited for the shaking to end (1 s).
        func shaken(stillBefore: Bool) -> Int64? {
            var e = OrientationEngine(tunables: .default, delivery: .stream)
            let gravity = poseVector(phi: 90, theta: 10).unit
            let slant = asin(0.3)
            let line = Vector3(x: 0, y: -cos(slant), z: 0) - gravity * sin(slant)
            for t in stride(from: Int64(0), to: 4000, by: 10) {
                let hand = stillBefore ? 0 : ((t / 10) % 2 == 0 ? 20.0 : -20.0)
                let sample: Sample
                switch t {
                case ..<1500:
                    sample = poseSample(t: t, phi: 0, theta: 10 + hand)
                case ..<1800:
                    sample = poseSample(t: t, phi: 90 * Double(t - 1500) / 300, theta: 10)
                case ..<2800:
                    let a = (gravity + line * ((t / 50) % 2 == 0 ? 0.6 : -0.6)) * 9.81
                    sample = Sample(timeMs: t, x: a.x, y: a.y, z: a.z)
                default:
                    sample = poseSample(t: t, phi: 90, theta: 10)
                }
                e.feed(sample)
                if e.orientation == .rightUp { return t - 1800 }
            }
            return nil
        }
        let picked = try #require(shaken(stillBefore: true))
        #expect(picked <= 250, "\(picked)")
        // The premise: it is the pick-up that takes it, not calm.
        let moved = try #require(shaken(stillBefore: false))
        #expect(moved >= 1000, "shaken before the turn: \(moved)")
    }

    @Test("the allowance ends PickUpMs after the rest")
    func pickUpEnds() throws {
        var short = EngineTunables.default
        short.pickUpMs = 200
        let late = try #require(placed(stillBefore: true, tunables: short))
        #expect(late >= 1000, "\(late)")
    }

    @Test("an event-driven sensor that sent nothing while the device lay still had it at rest")
    func silenceIsARest() throws {
        // One reading, then silence for 2 s (nothing changed), then the turn (its first
        // reading already 15° on: the rest's run has only the one reading) and the shaking.
        var e = OrientationEngine(delivery: .onChange)
        e.feed(poseSample(t: 0, phi: 0, theta: 10))
        var at: Int64?
        for t in stride(from: Int64(2000), to: 4500, by: 10) {
            let shake = (t / 10) % 2 == 0 ? 20.0 : -20.0
            let sample = t < 2300
                ? poseSample(t: t, phi: 15 + 75 * Double(t - 2000) / 300, theta: 10)
                : poseSample(t: t, phi: 90, theta: 10 + shake, g: shake > 0 ? 9.81 * 1.1 : 9.81 * 0.9)
            e.feed(sample)
            if e.orientation == .rightUp && at == nil { at = t - 2300 }
        }
        let picked = try #require(at)
        #expect(picked <= 150, "\(picked)")
    }

    @Test("with a gyroscope, which tells a turn from a hand's shaking, there is no allowance")
    func noAllowanceWithAGyroscope() {
        // Still in normal for 1.5 s, then turned in the screen's plane at 120°/s, through
        // right-up, to bottom-up, and held there: just too fast for the gyroscope's calm
        // (GyroCalmRateDegS), well within the allowance deep in right-up.
        func turn(gyroscope: Bool, tunables: EngineTunables = .default) -> [Orientation] {
            var e = OrientationEngine(tunables: tunables, delivery: .stream)
            var seen: [Orientation] = []
            let rate = 120.0
            for t in stride(from: Int64(0), to: 4500, by: 10) {
                let phi = min(180, max(0, rate * Double(t - 1500) / 1000))
                if gyroscope {
                    let turning = t >= 1500 && phi < 180
                    e.feedGyroscope(noisyGyroscope(t: t, z: turning ? rate * .pi / 180 : 0))
                }
                if e.feed(poseSample(t: t, phi: phi, theta: 10)), seen.last != e.orientation { seen.append(e.orientation) }
            }
            return seen
        }
        #expect(turn(gyroscope: true) == [.normal, .bottomUp], "\(turn(gyroscope: true))")
        var calmer = EngineTunables.default
        calmer.gyroCalmRateDegS = 150
        #expect(turn(gyroscope: true, tunables: calmer) == [.normal, .rightUp, .bottomUp],
                "the premise: calm at that rate commits the turn on its way")
    }

    @Test("a gyroscope read too rarely to integrate (10 Hz) leaves the allowance to the accelerometer")
    func sparseGyroscopeKeepsTheAllowance() throws {
        // 10 Hz: still in normal for 1.5 s, a quarter turn to right-up in 300 ms, then
        // pushed about by the hand for 1 s (±20° of elevation, 0.9/1.1 g by turns) while
        // the gyroscope reads no more turning. Read every 100 ms it is trusted for tilt
        // while its readings change smoothly, but calm does not read it (GyroIntegrateMaxMs):
        // it cannot tell the shaking from a turn, so it takes nothing of the allowance's
        // place. When right-up is reported, ms after the turn; nil if never.
        func placed(gyroscope: Bool) -> Int64? {
            var e = OrientationEngine(delivery: .stream)
            for t in stride(from: Int64(0), to: 4000, by: 100) {
                let turning = t > 1500 && t <= 1800
                if gyroscope { e.feedGyroscope(noisyGyroscope(t: t, z: turning ? 300 * .pi / 180 : 0)) }
                let shake = (t / 100) % 2 == 0 ? 20.0 : -20.0
                let sample = switch t {
                case ..<1500: poseSample(t: t, phi: 0, theta: 10)
                case ..<1800: poseSample(t: t, phi: 90 * Double(t - 1500) / 300, theta: 10)
                case ..<2800: poseSample(t: t, phi: 90, theta: 10 + shake, g: 9.81 * ((t / 100) % 2 == 0 ? 1.1 : 0.9))
                default: poseSample(t: t, phi: 90, theta: 10)
                }
                e.feed(sample)
                if e.orientation == .rightUp { return t - 1800 }
            }
            return nil
        }
        let alone = try #require(placed(gyroscope: false))
        let fused = try #require(placed(gyroscope: true))
        #expect(alone <= 300, "the premise: the accelerometer alone takes the pose while it is shaken (\(alone) ms)")
        #expect(fused <= alone, "with a 10 Hz gyroscope \(fused) ms, alone \(alone) ms")
    }

    @Test("a run begun from standing still is no pick-up: a stride's jolt ends it")
    func aJoltEndsThePickUp() {
        // Still for 2 s, then brisk strides (300 ms of 1.6–2.2 g) and quiet moments of
        // 150 ms pointing to left-up.
        #expect(RunQuietTests().run(joltMs: 300, quietMs: 150) == [.normal])
        var noJolt = EngineTunables.default
        noJolt.pickUpJoltG = 100
        #expect(RunQuietTests().run(joltMs: 300, quietMs: 150, tunables: noJolt).contains(.leftUp),
                "without the rule, a quiet moment of the first strides is taken for a pose")
    }

    @Test("a half turn just after a rest does not stop at the orientation it passes")
    func aTurnStillUnderWayGetsNoAllowance() {
        // The scripted motion turns from right-up to left-up at 180°/s after standing still.
        let samples = MotionTests.script.samples(hz: 100, noise: 0.08, seed: 7)
        #expect(orientationChanges(replay(samples)).map(\.1) == MotionTests.expectedOrientations)
        var noTurn = EngineTunables.default
        noTurn.pickUpTurnDegS = 0
        #expect(orientationChanges(replay(samples, tunables: noTurn)).map(\.1).contains(.bottomUp),
                "without the rule, bottom-up is committed on the way")
    }

    @Test("a phone rolled over its edge from face up to face down, just after lying still, is not turned on the way")
    func aRollOverTheEdgeIsNoPickUp() {
        // Upright in normal, laid face up (88°) and still until 3 s, then rolled about its
        // long axis over its right edge at 100°/s down to face down (−70°), φ shaken ±8°
        // by the hand at every reading (never a rest, never calm), at 100 Hz.
        func roll(_ tunables: EngineTunables) -> [Orientation] {
            var e = OrientationEngine(tunables: tunables, delivery: .stream)
            var seen: [Orientation] = []
            for t in stride(from: Int64(0), to: 6000, by: 10) {
                let shake = (t / 10) % 2 == 0 ? 8.0 : -8.0
                let sample = t < 3000
                    ? uprightThenFaceUp(t: t)
                    : poseSample(t: t, phi: 90 + shake, theta: max(-70, 88 - 100 * Double(t - 3000) / 1000))
                if e.feed(sample), seen.last != e.orientation { seen.append(e.orientation) }
            }
            return seen
        }
        #expect(roll(.default) == [.normal], "\(roll(.default))")
    }

    @Test("a sweep of the elevation toward the vertical counts when both ways do")
    func sweepBothWays() {
        // From face up (80°) toward the vertical at 200°/s: away from flat, so not
        // flatward, but a sweep.
        var flatward = FlatwardSweep(tunables: .default)
        var sweep = FlatwardSweep(tunables: .default, bothWays: true)
        for t in stride(from: 0.0, through: 300, by: 10) {
            let s = sin((80 - 0.2 * t) * .pi / 180)
            flatward.observe(sinElevation: s, at: t, dtMs: 10)
            sweep.observe(sinElevation: s, at: t, dtMs: 10)
        }
        #expect(flatward.calmFromMs <= 300)
        #expect(sweep.calmFromMs == .infinity)
    }

    @Test("only a proposal deep in its orientation gets the allowance")
    func depthOnly() {
        let g = Geometry(tunables: .default)
        func depth(_ phi: Double, _ o: Orientation) -> Double {
            g.depthDeg(g.pose(poseVector(phi: phi, theta: 10).unit), in: o)
        }
        #expect(abs(depth(90, .rightUp) - 45) < 0.01)
        #expect(abs(depth(60, .rightUp) - 15) < 0.01)
        #expect(abs(depth(-150, .bottomUp) - 15) < 0.01)
        #expect(abs(depth(-80, .leftUp) - 35) < 0.01)
        #expect(abs(depth(10, .normal) - 35) < 0.01)
        #expect(depth(30, .rightUp) < 0)
    }

    /// A reading's direction, as the estimate holds it.
    func poseVector(phi: Double, theta: Double) -> Vector3 { Vector3(poseSample(t: 0, phi: phi, theta: theta)) }
}
