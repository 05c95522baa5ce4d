import Foundation
import Testing
@testable import OrientationEngine
import TestSupport
import OrientationAPI

/// What real sensors and real people do that a tidy synthetic trace does not: wrong scales,
/// silent event-driven sensors, running, screens toward the floor, clocks that jump.
@Suite("Real-world behaviour")
struct RealWorldTests {
    static let script = MotionTests.script

    /// Replays samples the way the daemon and `orientationctl replay` do: a pending decision
    /// completes at its deadline with the last sample held when the next sample is later.
    func replayWithDeadlines(_ samples: [Sample], tunables: EngineTunables = .default) -> [Change] {
        var engine = OrientationEngine(tunables: tunables)
        var out: [Change] = []
        for s in samples {
            while let d = engine.nextDeadlineMs, d < s.timeMs {
                if engine.advance(toMs: d) { out.append(Change(t: d, orientation: engine.orientation, tilt: engine.tilt)) }
            }
            if engine.feed(s) { out.append(Change(t: s.timeMs, orientation: engine.orientation, tilt: engine.tilt)) }
        }
        return out
    }

    func scaled(_ samples: [Sample], _ k: Double) -> [Sample] {
        samples.map { Sample(timeMs: $0.timeMs, x: $0.x * k, y: $0.y * k, z: $0.z * k) }
    }

    // MARK: Scale

    @Test("mis-scaled sensors (x0.01, x0.1, x10, x1000) decide as a correct one", arguments: [0.01, 0.1, 10, 1000])
    func scaleInvariance(k: Double) {
        let samples = Self.script.samples(hz: 50, noise: 0.08, seed: 3)
        let reference = replay(samples)
        let changes = replay(scaled(samples, k))
        #expect(orientationChanges(changes).map(\.1) == orientationChanges(reference).map(\.1))
        // Within the settle time of each other.
        for (a, b) in zip(orientationChanges(changes), orientationChanges(reference)) {
            #expect(abs(a.0 - b.0) <= Int64(EngineTunables.default.orientationSettleMs), "\(a) vs \(b)")
        }
        var e = OrientationEngine()
        for s in scaled(Self.script.samples(hz: 50, seed: 3), k) { e.feed(s) }
        let g = try! #require(e.learnedGravity)
        #expect(abs(g / (9.81 * k) - 1) < 0.03, "learned \(g) for scale \(k)")
        #expect(e.scaleLooksWrong == (k != 1))
        #expect(e.scaleWarning?.contains("sensor scale looks wrong") == (k != 1))
    }

    @Test("iio-sensor-proxy's test: raw -256000000 at scale 0.000001 (26 g) is normal, then right-up on x")
    func twentySixG() {
        var e = OrientationEngine()
        var t: Int64 = 0
        for _ in 0..<150 {
            e.feed(Sample(timeMs: t, x: 0, y: -256, z: 0))
            t += 10
        }
        #expect(e.orientation == .normal)
        for _ in 0..<150 {
            e.feed(Sample(timeMs: t, x: -256, y: 0, z: 0))
            t += 10
        }
        #expect(e.orientation == .rightUp)
        #expect(e.scaleWarning?.contains("gravity reads 256 m/s^2") == true, "\(e.scaleWarning ?? "no warning")")
    }

    @Test("iio-sensor-proxy's test goes on: a steady reading three times as long is the new gravity, face-up", arguments: [10.0, 100])
    func steadyReadingIsGravityWhateverItsLength(hz: Double) {
        // (0, -256, 0) then (-256, 0, 724): steady in direction and length, |a| = 768.
        var e = OrientationEngine()
        var t: Int64 = 0
        let period = Int64(1000 / hz)
        while t < 2000 { e.feed(Sample(timeMs: t, x: 0, y: -256, z: 0)); t += period }
        #expect(e.tilt == .vertical)
        let change = t
        var faceUp: Int64?
        while t < change + 3000 {
            e.feed(Sample(timeMs: t, x: -256, y: 0, z: 724))
            if faceUp == nil && e.tilt == .faceUp { faceUp = t - change }
            t += period
        }
        // Re-learned after RelearnMs of the steady reading, then decided as any rest.
        let bound = Int64(EngineTunables.default.relearnMs + EngineTunables.default.tiltSettleMs) + 2 * period
        #expect(faceUp.map { $0 <= bound } == true, "\(hz) Hz: face-up after \(String(describing: faceUp)) ms")
        #expect(abs((e.learnedGravity ?? 0) - 768) < 8, "learned \(e.learnedGravity ?? 0)")
    }

    @Test("a pendulum's moments of stillness at another length do not teach the 1 g")
    func briefStillnessTeachesNothing() {
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 2000 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 10 }
        let learned = e.learnedGravity ?? 0
        #expect(abs(learned - 9.81) < 0.1)
        // A swing's ends: 200 ms still at 1.15 g, then 100 ms of pull, again and again.
        for _ in 0..<30 {
            let end = t + 200
            while t < end { e.feed(poseSample(t: t, phi: 10, theta: 0, g: 9.81 * 1.15)); t += 10 }
            let swing = t + 100
            while t < swing { e.feed(poseSample(t: t, phi: 40, theta: 0, g: 9.81 * 0.7)); t += 10 }
        }
        #expect(abs((e.learnedGravity ?? 0) - learned) < 0.05, "learned \(e.learnedGravity ?? 0)")
    }

    @Test("before any rest, a sensor of a plausible scale is judged against StandardGravity: a pull of 2 or 3.5 g is no calm",
          arguments: [2.0, 3.5])
    func pullBeforeAnyRestIsNotCalm(pull: Double) {
        // Started while a phone is swung in a running hand: never still, its mean reading
        // `pull` g along the arm, 70° from where the first reading showed gravity (a
        // recorded run's readings averaged up to 3.9 g over a second).
        var e = OrientationEngine()
        var t: Int64 = 0
        e.feed(poseSample(t: t, phi: 0, theta: 0))
        var i = 0
        var seen = Set<Orientation>()
        while t < 4000 {
            t += 10
            i += 1
            e.feed(poseSample(t: t, phi: -70 + (i % 2 == 0 ? 3 : -3), theta: 0, g: 9.81 * (pull + (i % 4 < 2 ? -0.3 : 0.3))))
            seen.insert(e.orientation)
        }
        #expect(seen == [.normal], "\(seen)")
    }

    @Test("a device tumbled over and over before any rest keeps its scale: held still, it is decided at once, at x1, x10 and x0.01",
          arguments: [1.0, 10, 0.01])
    func tumbleBeforeAnyRestKeepsTheScale(scale k: Double) throws {
        // Whirled from the start, once a second about its x axis for 3 s (gravity sweeps
        // every direction of the y-z plane: the mean reading shrinks toward nothing while
        // every reading is 1 g long), then held still in right-up.
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 3000 {
            e.feed(scaled([poseSample(t: t, phi: 0, theta: Double(t) * 0.36)], k)[0])
            t += 10
        }
        let held = t
        var rightUp: Int64?
        while t < held + 2000 {
            e.feed(scaled([poseSample(t: t, phi: 90, theta: 0)], k)[0])
            if rightUp == nil && e.orientation == .rightUp { rightUp = t - held }
            t += 10
        }
        let after = try #require(rightUp, "never right-up")
        #expect(after <= Int64(EngineTunables.default.restMs) + 30, "right-up \(after) ms after it was held")
    }

    @Test("a long shake or a free fall does not poison the learned gravity")
    func gravityNotPoisoned() {
        var e = OrientationEngine()
        var t: Int64 = 0
        func hold(_ ms: Int64, _ v: (Double, Double, Double), every: Int64 = 10) {
            let end = t + ms
            while t < end {
                e.feed(Sample(timeMs: t, x: v.0, y: v.1, z: v.2))
                t += every
            }
        }
        hold(2000, (0, -9.81, 0))
        #expect(abs((e.learnedGravity ?? 0) - 9.81) < 0.1)
        // 5 s of a 3 g shake at 7 Hz, then 0.4 s of free fall.
        let end = t + 5000
        while t < end {
            let s = sin(Double(t) * 2 * .pi * 7 / 1000) * 20
            e.feed(Sample(timeMs: t, x: s * 0.3, y: -9.81 + s, z: 0))
            t += 10
        }
        hold(400, (0.01, -0.02, 0.01))
        #expect(abs((e.learnedGravity ?? 0) - 9.81) < 0.3, "learned \(e.learnedGravity ?? 0)")
        #expect(e.orientation == .normal)
    }

    // MARK: Silent sensors

    @Test("a quarter turn seen as one burst, then silence, completes at the engine's deadline")
    func silentSensorCompletes() throws {
        var e = OrientationEngine()
        e.feed(Sample(timeMs: 0, x: 0, y: -9.81, z: 0))
        #expect(e.orientation == .normal)
        #expect(e.nextDeadlineMs == nil, "nothing pending: no timer")
        // An evdev accelerometer turned to left-up: a few events, then nothing (the input
        // core drops repeated values).
        e.feed(Sample(timeMs: 1000, x: 6, y: -6, z: 0))
        e.feed(Sample(timeMs: 1020, x: 9.81, y: 0, z: 0))
        #expect(e.orientation == .normal)
        var now: Int64 = 1020
        var wakeups = 0
        while e.orientation == .normal, let d = e.nextDeadlineMs, wakeups < 20 {
            #expect(d > now)
            now = d
            e.advance(toMs: d)
            wakeups += 1
        }
        #expect(e.orientation == .leftUp)
        #expect(now - 1020 <= 500, "settled \(now - 1020) ms after the last event")
        #expect(wakeups <= 8)
        // Decided: once the estimates have reached the held reading, the timer goes quiet.
        var after = 0
        while let d = e.nextDeadlineMs, after < 10 {
            now = d
            e.advance(toMs: d)
            after += 1
        }
        #expect(e.nextDeadlineMs == nil && after <= 3, "\(after) more wake-ups")
        #expect(e.orientation == .leftUp)
        let changedAgain = e.advance(toMs: now)
        #expect(!changedAgain, "a time that is not later changes nothing")
    }

    @Test("a reading after a dropout is measured against the estimate as at the sensor's rate, not as a slow turn across the gap")
    func readingAfterADropoutIsNoSlowTurn() {
        // Normal and still, then shaken about left-up (φ −90° ± 25° at every reading, 1 g
        // long: never calm), then the sensor drops out for 0.6 s; its first reading after
        // the gap is one of the shake's ends. Measured as a turn spread over the gap, it
        // looked calm, and left-up was committed on it. (Just after the device lay still,
        // a shake this size about left-up is a pick-up, PickUpTests: off here.)
        var noPickUp = EngineTunables.default
        noPickUp.pickUpMs = 0
        var e = OrientationEngine(tunables: noPickUp)
        var t: Int64 = 0
        while t < 1500 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 10 }
        var i = 0
        func shaken(_ t: Int64) -> Sample {
            i += 1
            return poseSample(t: t, phi: -90 + (i % 2 == 0 ? 25 : -25), theta: 0)
        }
        while t < 2000 { e.feed(shaken(t)); t += 10 }
        #expect(e.orientation == .normal)
        t = 2600
        while t <= 2700 {
            e.feed(shaken(t))
            #expect(e.orientation == .normal, "at \(t) ms")
            t += 10
        }
    }

    @Test("a held reading that is itself linear acceleration completes nothing")
    func heldAccelerationHasNoDeadline() {
        var e = OrientationEngine()
        var t: Int64 = 0
        for _ in 0..<100 { e.feed(Sample(timeMs: t, x: 0, y: -9.81, z: 0)); t += 10 }
        e.feed(Sample(timeMs: t, x: 25, y: 0, z: 0))  // 2.5 g sideways, then silence
        #expect(e.nextDeadlineMs == nil)
        #expect(e.orientation == .normal)
    }

    @Test("replay with deadlines gives the same decisions on a streaming sensor")
    func deadlinesAgreeWithStreaming() {
        let samples = Self.script.samples(hz: 100, noise: 0.08, seed: 7)
        let a = orientationChanges(replay(samples)).map(\.1)
        let b = orientationChanges(replayWithDeadlines(samples)).map(\.1)
        #expect(a == b)
        #expect(a == MotionTests.expectedOrientations)
    }

    // MARK: People

    @Test("running with the device held in landscape does not turn it")
    func running() {
        // Left-up held still, then 20 s of running: strides at 2.8 Hz with 0.55 g vertical
        // bounce and 0.35 g sideways sway (in the screen plane) at half the stride rate.
        var samples: [Sample] = []
        var t = 0.0
        while t < 22_000 {
            let running = t > 2000
            let w = 2 * Double.pi * 2.8 * t / 1000
            let v = running ? 0.55 * sin(w) + 0.2 * sin(2 * w + 0.7) : 0
            let h = running ? 0.35 * sin(w / 2) : 0
            // Up is +x (left-up); sideways in the screen plane is y.
            samples.append(Sample(timeMs: Int64(t), x: 9.81 * (1 + v), y: 9.81 * h, z: 0.5))
            t += 5
        }
        let changes = orientationChanges(replayWithDeadlines(samples))
        #expect(changes.map(\.1) == [.leftUp], "\(changes)")
    }

    @Test("screen toward the floor (held overhead, lying in bed): turning does not rotate")
    func overhead() {
        let motion = Motion(keys: [(0, 0, -10), (1000, 0, -10), (1500, 0, -48), (3000, 0, -48),
                                   (3600, 90, -48), (6000, 90, -48), (6500, 90, 0), (8000, 90, 0)])
        let changes = orientationChanges(replay(motion.samples(hz: 100, noise: 0.05)))
        // Normal throughout the overhead hold; right-up only once it is upright again.
        #expect(changes.map(\.1) == [.normal, .rightUp], "\(changes)")
        #expect((changes.last?.0 ?? 0) > 6000)
    }

    @Test("a pass through an orientation while the hand still moves is not followed")
    func passWhileMoving() {
        // Normal, then a flick through right-up and back within 0.4 s.
        let motion = Motion(keys: [(0, 0, 5), (1000, 0, 5), (1200, 80, 5), (1400, 0, 5), (3000, 0, 5)])
        let changes = orientationChanges(replay(motion.samples(hz: 100, noise: 0.05)))
        #expect(changes.map(\.1) == [.normal], "\(changes)")
    }

    // MARK: Bad input

    @Test("timestamps that jump back or forward by hours, zero vectors and absurd magnitudes")
    func badClocksAndVectors() {
        var e = OrientationEngine()
        var t: Int64 = 10_000_000
        for _ in 0..<200 { e.feed(Sample(timeMs: t, x: 0, y: -9.81, z: 0)); t += 10 }
        #expect(e.learnedGravity != nil)
        e.feed(Sample(timeMs: t - 3_600_000, x: 0, y: -9.81, z: 0))  // an hour back
        e.feed(Sample(timeMs: t, x: 0, y: 0, z: 0))
        e.feed(Sample(timeMs: t + 5, x: 1e150, y: 1e150, z: 0))
        e.feed(Sample(timeMs: t + 10, x: .nan, y: 0, z: 0))
        #expect(e.orientation == .normal)
        t += 3_600_000 * 5  // five hours later
        for _ in 0..<100 { e.feed(Sample(timeMs: t, x: 9.81, y: 0, z: 0)); t += 10 }
        #expect(e.orientation == .leftUp)
        #expect(abs((e.learnedGravity ?? 0) - 9.81) < 0.2)
    }

    @Test("timestamps at the ends of Int64 neither trap nor leave a deadline that cannot be armed")
    func extremeTimestamps() {
        var e = OrientationEngine()
        e.feed(Sample(timeMs: .min, x: 0, y: -9.81, z: 0))
        e.feed(Sample(timeMs: .min + 100, x: 0, y: -9.81, z: 0))
        e.feed(Sample(timeMs: .max - 50, x: 9.81, y: 0, z: 0))  // a turn, and the clock at its end
        e.feed(Sample(timeMs: .max - 40, x: 9.81, y: 0, z: 0))
        if let d = e.nextDeadlineMs { e.advance(toMs: d) }
        e.feed(Sample(timeMs: .max, x: 9.81, y: 0, z: 0))
        #expect(e.nextDeadlineMs == nil, "no deadline past the end of the clock")
        e.advance(toMs: .max)
        e.feed(Sample(timeMs: .min, x: 0, y: -9.81, z: 0))  // and back to the start
        #expect(e.orientation != .undefined)
    }

    @Test("a first sample taken in free fall does not make every later reading look absurd")
    func firstSampleInFreeFall() {
        var e = OrientationEngine()
        var t: Int64 = 0
        e.feed(Sample(timeMs: t, x: 0.001, y: -0.004, z: 0.002))
        for _ in 0..<400 { t += 10; e.feed(Sample(timeMs: t, x: 9.81, y: 0, z: 0)) }
        #expect(e.orientation == .leftUp)
        #expect(abs((e.learnedGravity ?? 0) - 9.81) < 0.2, "learned \(e.learnedGravity ?? 0)")
    }
}

/// A client may start the sensor while its user jogs: the first sample is then taken
/// mid-stride, and is not the sensor's 1 g (taken for it, every later sample looked like
/// linear acceleration and the turn was never seen).
@Suite("Started while jogging")
struct StartedWhileJoggingTests {
    /// 100 Hz: upright for 5 s, turned a quarter to right-up over 300 ms, right-up for 5 s,
    /// all the while jogging with the phone in the hand (from the first sample on): a
    /// vertical bounce of 0.42 g at 2.8 Hz with a 0.15 g harmonic, sideways sway of 0.18 g
    /// and the arm's fore-aft swing of 0.24 g at half that rate. Returns the orientation
    /// changes.
    func run(phase: Double, strength: Double = 0.6) -> [(Int64, Orientation)] {
        var e = OrientationEngine()
        var out: [(Int64, Orientation)] = []
        for i in 0..<1000 {
            let t = Int64(i * 10)
            let phi = t < 5000 ? 0 : min(90, Double(t - 5000) / 300 * 90)
            let g = poseSample(t: t, phi: phi, theta: 0)
            let up = (g.x / 9.81, g.y / 9.81, g.z / 9.81)
            let h = (up.1, -up.0, 0.0)                                      // sideways
            let f = (h.1 * up.2 - h.2 * up.1, h.2 * up.0 - h.0 * up.2, h.0 * up.1 - h.1 * up.0)
            let w = 2 * Double.pi * 2.8 * Double(t) / 1000 + phase
            let v = strength * (0.7 * sin(w) + 0.25 * sin(2 * w + 0.7)), side = strength * 0.3 * sin(w / 2)
            let fore = strength * 0.4 * sin(w / 2 + 1.3)
            let s = Sample(timeMs: t, x: g.x + 9.81 * (v * up.0 + side * h.0 + fore * f.0),
                           y: g.y + 9.81 * (v * up.1 + side * h.1 + fore * f.1),
                           z: g.z + 9.81 * (v * up.2 + side * h.2 + fore * f.2))
            if e.feed(s) { out.append((t, e.orientation)) }
        }
        return out
    }

    /// The stride rule's latency: the slow estimate crosses the leave angle, then stands
    /// StrideMs.
    static let strideLatency = Int64(EngineTunables.default.strideMs + 2 * EngineTunables.default.strideFilterMs)

    @Test("running flat out (0.7 g of bounce, 1.2 g in all), a turn is decided on the stride estimate within 2 s",
          arguments: [0.0, 1.6, 4.7, 5.5])
    func turnWhileRunningFlatOut(phase: Double) throws {
        // Never calm for long enough for the other estimates: without the stride estimate
        // these never turn (and the last two never decide at all after a first sample
        // taken in the air).
        let changes = run(phase: phase, strength: 1)
        let turned = try #require(changes.first { $0.1 == .rightUp }, "never turned: \(changes)")
        #expect(turned.0 >= 5000 && turned.0 <= 5300 + Self.strideLatency, "turned at \(turned.0) ms")
        #expect(changes.allSatisfy { $0.1 == .normal || $0.1 == .rightUp || $0.1 == .undefined }, "\(changes)")
    }

    @Test("a turn while jogging, the sensor started at any phase of a stride, is seen",
          arguments: [0.0, 1.6, 3.1, 3.9, 4.7, 5.5])
    func turnWhileRunning(phase: Double) throws {
        let changes = run(phase: phase).filter { $0.1 != .normal || $0.0 == 0 }
        let turned = try #require(changes.first { $0.1 == .rightUp }, "never turned: \(changes)")
        // Jogging is never calm (the bounce alone is 0.4 g): the stride rule decides.
        #expect(turned.0 >= 5000 && turned.0 <= 5300 + Self.strideLatency, "turned at \(turned.0) ms")
        #expect(changes.allSatisfy { $0.1 == .normal || $0.1 == .rightUp }, "\(changes)")
    }
}

/// A run in the hand gives the accelerometer a moment of quiet now and then, between
/// strides, in which the few readings near 1 g are the arm's pull as much as gravity.
@Suite("Quiet moments in a run")
struct RunQuietTests {
    /// 100 Hz: held upright and still for 2 s; then `joltMs` of a stride's jolts (1.6–2.2 g,
    /// swaying ±40° about the upright) and `quietMs` with the readings near 1 g pointing
    /// 80° to the left (with a hand's tremor: never a rest), again and again for 10 s.
    /// Returns the orientation changes.
    func run(joltMs: Int64, quietMs: Int64, tunables: EngineTunables = .default) -> [Orientation] {
        var e = OrientationEngine(tunables: tunables)
        var seen: [Orientation] = []
        var t: Int64 = 0
        while t < 12_000 {
            let sample: Sample
            let cycle = (t - 2000) % (joltMs + quietMs)
            if t < 2000 {
                sample = poseSample(t: t, phi: 0, theta: 10)
            } else if cycle < joltMs {
                let k = Double(cycle) / Double(joltMs)
                sample = poseSample(t: t, phi: -30 + 40 * sin(2 * .pi * k), theta: 10, g: 9.81 * (1.9 + 0.3 * sin(4 * .pi * k)))
            } else {
                let n = Int(t / 10) % 4
                sample = poseSample(t: t, phi: -80 + [0, 7, 0, -7][n], theta: 10 + [0, 4, 0, -4][n], g: 9.81 * [1, 1.05, 1, 0.95][n])
            }
            if e.feed(sample), seen.last != e.orientation { seen.append(e.orientation) }
            t += 10
        }
        return seen
    }

    @Test("calm needs most recent readings at 1 g: a run's short quiet moments decide nothing")
    func quietMomentsOfARunDecideNothing() {
        // 800 ms of jolts, 230 ms of quiet: calm for a moment, but less than half of the
        // last half second's readings near 1 g.
        #expect(run(joltMs: 800, quietMs: 230) == [.normal])
        var off = EngineTunables.default
        off.calmGravityShare = 0
        #expect(run(joltMs: 800, quietMs: 230, tunables: off) == [.normal, .leftUp])
    }

    @Test("a turn ended with a short shake and held is still committed by calm")
    func shakeThenHoldIsCommitted() {
        // One 300 ms shake of ±0.2 g on the way, then held left-up with a tremor: most
        // readings stay near 1 g, and calm commits within half a second.
        var e = OrientationEngine()
        var t: Int64 = 0
        var committed: Int64?
        while t < 5000 {
            let sample: Sample
            if t < 2000 {
                sample = poseSample(t: t, phi: 0, theta: 10)
            } else if t < 2300 {
                let k = Double(t - 2000) / 300
                sample = poseSample(t: t, phi: -80 * k, theta: 10, g: 9.81 * (1 + 0.2 * sin(6 * .pi * k)))
            } else {
                let n = Int(t / 10) % 4
                sample = poseSample(t: t, phi: -80 + [0, 7, 0, -7][n], theta: 10 + [0, 4, 0, -4][n], g: 9.81 * [1, 1.05, 1, 0.95][n])
            }
            e.feed(sample)
            if committed == nil && e.orientation == .leftUp { committed = t }
            t += 10
        }
        #expect(committed.map { $0 - 2300 <= 500 } == true, "left-up at \(String(describing: committed))")
    }
}
