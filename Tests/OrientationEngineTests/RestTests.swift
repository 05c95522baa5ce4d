import Foundation
import Testing
@testable import OrientationEngine
import TestSupport
import OrientationAPI

/// The rest rule: a device that stops moving is decided `RestMs` after it stopped, at
/// every rate, while a hand that still moves is not "at rest".
@Suite("At rest")
struct RestTests {
    static let steady = Int64(EngineTunables.default.restMs)

    /// Feeds `hz` samples of normal for 1 s, then of the pose `phi` (a step, as a bench's
    /// rewritten sysfs value or an evdev burst gives), each with `jitter(i)` added to φ.
    /// Returns how long after the step the orientation became `expected`, or nil.
    func latency(hz: Double, phi: Double, expected: Orientation, tunables: EngineTunables = .default,
                 jitter: (Int) -> Double = { _ in 0 }) -> Int64? {
        var e = OrientationEngine(tunables: tunables)
        let period = 1000 / hz
        var i = 0
        var t = 0.0
        while t < 1000 {
            e.feed(poseSample(t: Int64(t), phi: 0, theta: 0))
            i += 1
            t = Double(i) * period
        }
        let step = Int64(t)
        #expect(e.orientation == .normal)
        while t < 3000 {
            e.feed(poseSample(t: Int64(t), phi: phi + jitter(i), theta: 0))
            if e.orientation == expected { return Int64(t) - step }
            i += 1
            t = Double(i) * period
        }
        return nil
    }

    @Test("a step held still is decided RestMs after it, at 10, 25, 50 and 200 Hz", arguments: [10.0, 25, 50, 200])
    func stepAtEveryRate(hz: Double) throws {
        let period = Int64(1000 / hz)
        for (phi, expected) in [(-90.0, Orientation.leftUp), (90, .rightUp), (180, .bottomUp)] {
            let ms = try #require(latency(hz: hz, phi: phi, expected: expected))
            // The first sample of the new pose begins the rest (credited half an interval).
            #expect(ms >= Self.steady - period && ms <= Self.steady + period,
                    "\(expected.rawValue) at \(hz) Hz after \(ms) ms")
        }
    }

    @Test("without the rest rule the same step at 50 Hz waits for the disturbance to decay")
    func slowerWithoutRest() throws {
        var off = EngineTunables.default
        off.restMs = 0
        let without = try #require(latency(hz: 50, phi: -90, expected: .leftUp, tunables: off))
        let with = try #require(latency(hz: 50, phi: -90, expected: .leftUp))
        #expect(without >= with + 40, "rest \(with) ms, filters \(without) ms")
    }

    @Test("a hand still moving (±8° of tremor) is not at rest: the step waits for calm")
    func tremorIsNotRest() throws {
        // Alternating ±8°: every sample is 16° from the one before, more than RestAngleDeg.
        let ms = try #require(latency(hz: 50, phi: -90, expected: .leftUp, jitter: { $0 % 2 == 0 ? 8 : -8 }))
        #expect(ms > Self.steady + 40, "decided after \(ms) ms")
    }

    /// Normal held still for 1 s at 100 Hz, then 140 ms at φ = −75° (past the 60° at which
    /// normal is left), each reading `g(ms into the excursion)` long, then normal again.
    /// Returns the orientations reported during and after the excursion.
    func excursion(magnitude g: (Double) -> Double) -> Set<Orientation> {
        var e = OrientationEngine()
        var seen = Set<Orientation>()
        for t in stride(from: Int64(0), to: 1000, by: 10) { e.feed(poseSample(t: t, phi: 0, theta: 0)) }
        for t in stride(from: Int64(1000), to: 1140, by: 10) {
            e.feed(poseSample(t: t, phi: -75, theta: 0, g: 9.81 * g(Double(t - 1000))))
            seen.insert(e.orientation)
        }
        for t in stride(from: Int64(1140), to: 2500, by: 10) {
            e.feed(poseSample(t: t, phi: 0, theta: 0))
            seen.insert(e.orientation)
        }
        return seen
    }

    @Test("a swinging arm's pull (steady direction, magnitude ±30 %) is no rest: its excursion is not followed")
    func swingPullIsNotRest() {
        // A phone swung in the hand reads along the arm, a pendulum: the direction barely
        // moves while the magnitude swings between about 0.7 and 1.3 g (each sample within
        // the acceleration gate, the motion estimate's average near 1 g).
        let swing = excursion { ms in 1 + 0.3 * sin(2 * .pi * ms / 60) }
        #expect(swing == [.normal], "reported \(swing)")
        // The same excursion held still is a rest, and completes after RestMs (the
        // contrast: it is the magnitude that makes the swing no rest).
        let still = excursion { _ in 1 }
        #expect(still.contains(.leftUp), "reported \(still)")
    }

    /// Normal held at `theta`° of elevation with a hand's tremor (±3°: no rest) for 1 s at
    /// 50 Hz, then φ = −75° (past the leave angle, clear of the edge) held still for
    /// `pauseMs`, then normal again until 3 s. Returns the orientations reported after the
    /// first second.
    func pause(theta: Double, pauseMs: Int64, tunables: EngineTunables = .default) -> Set<Orientation> {
        var e = OrientationEngine(tunables: tunables)
        var seen = Set<Orientation>()
        var t: Int64 = 0
        while t < 1000 {
            e.feed(poseSample(t: t, phi: (t / 20) % 2 == 0 ? 3 : -3, theta: theta))
            t += 20
        }
        while t < 3000 {
            e.feed(poseSample(t: t, phi: t < 1000 + pauseMs ? -75 : 0, theta: theta))
            seen.insert(e.orientation)
            t += 20
        }
        return seen
    }

    @Test("above RestElevationDeg a still moment must stand EdgeSettleMs to leave the orientation, as at the edge")
    func nearFlatRestStandsLonger() {
        let settle = Int64(EngineTunables.default.edgeSettleMs)
        #expect(EngineTunables.default.restElevationDeg < 63)
        // Leaned back 63° (a texting hand): φ moves 1/cos 63° ≈ 2.2 times as far as the
        // direction of gravity, so a pause of the hand that RestMs would take for a pose
        // (here 200 ms) is not followed.
        #expect(pause(theta: 63, pauseMs: 200) == [.normal])
        #expect(200 < settle)
        // Held there for good, it is.
        #expect(pause(theta: 63, pauseMs: 2000).contains(.leftUp))
        // The same pause leaned back 55° (above CalmElevationDeg: only a rest decides) or
        // 30° is a pose, followed after RestMs: a phone turned in a reading posture.
        #expect(pause(theta: 55, pauseMs: 200).contains(.leftUp))
        #expect(pause(theta: 30, pauseMs: 200).contains(.leftUp))
        // RestElevationDeg 90 turns the rule off.
        var off = EngineTunables.default
        off.restElevationDeg = 90
        #expect(pause(theta: 63, pauseMs: 200, tunables: off).contains(.leftUp))
    }

    /// Feeds normal for 1 s at 50 Hz, then `burst` (times from 1000 ms), then nothing:
    /// follows the engine's deadlines. Returns (ms after 1000 the orientation became
    /// left-up, wake-ups it took, wake-ups after it).
    func silentBurst(_ burst: [Sample]) -> (ms: Int64?, wakeups: Int, after: Int) {
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 20 }
        for s in burst { e.feed(s) }
        var now = burst.last?.timeMs ?? t
        var wakeups = 0
        while e.orientation == .normal, let d = e.nextDeadlineMs, wakeups < 20 {
            now = d
            e.advance(toMs: d)
            wakeups += 1
        }
        var after = 0
        while let d = e.nextDeadlineMs, after < 10 { e.advance(toMs: d); after += 1 }
        return (e.orientation == .leftUp ? now - 1000 : nil, wakeups, after)
    }

    @Test("a silent sensor's burst of two readings of the new pose is decided RestMs after it")
    func silentBurstCompletesAtRestMs() throws {
        // An evdev accelerometer turned and laid still: its last two reports, then nothing.
        let r = silentBurst([poseSample(t: 1000, phi: -90, theta: 0), poseSample(t: 1010, phi: -89, theta: 0)])
        let ms = try #require(r.ms)
        #expect(ms <= Self.steady, "decided \(ms) ms after the burst")
        #expect(r.wakeups <= 2 && r.after <= 3, "\(r.wakeups) wake-ups, then \(r.after)")
    }

    @Test("a silent sensor picked up from flat is decided FlatExitMs after its burst, not a wake-up later")
    func silentPickUpFromFlat() throws {
        // An evdev accelerometer lying face-up, then lifted to left-up and held: two
        // reports and nothing more. The flat exit (250 ms) is longer than MaxIntervalMs
        // (150), which is all a held reading is credited: a single deadline 250 ms later
        // would find the exit 100 ms short and need another, 70 ms later.
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: -90, theta: 90)); t += 20 }
        #expect(e.orientation == .undefined)
        e.feed(poseSample(t: 1000, phi: -90, theta: 0))
        e.feed(poseSample(t: 1010, phi: -90, theta: 0))
        // The first sample after flat: already out of the flat zone, so it may decide at once.
        var wakeups = 0
        while e.orientation == .undefined, let d = e.nextDeadlineMs, wakeups < 20 {
            e.advance(toMs: d)
            wakeups += 1
            t = d
        }
        #expect(e.orientation == .leftUp)
        let flatExit = Int64(EngineTunables.default.flatExitMs)
        #expect(t - 1000 <= flatExit + 10, "decided \(t - 1000) ms after the burst, \(wakeups) wake-ups")
    }

    @Test("a single reading then silence is a rest once the sensor is silent, not before")
    func singleReadingThenSilence() throws {
        // An event-driven sensor sends nothing while the value stays: its silence is the
        // second reading. Not before it is silent (50 % longer than it took to send).
        let r = silentBurst([poseSample(t: 1000, phi: -90, theta: 0)])
        let ms = try #require(r.ms)
        #expect(ms >= 30 && ms <= Self.steady + 10, "decided \(ms) ms after the reading")
        #expect(r.wakeups <= 2 && r.after <= 3, "\(r.wakeups) wake-ups, then \(r.after)")
    }

    @Test("a single reading from a sensor that keeps sending decides nothing by itself", arguments: [10.0, 25])
    func singleReadingOfAStreamDecidesNothing(hz: Double) {
        // A poll that read the new pose once, and the next poll the old pose again.
        var e = OrientationEngine()
        let period = Int64(1000 / hz)
        var t: Int64 = 0
        var seen = Set<Orientation>()
        while t < 3000 {
            let phi = t == 1000 / period * period ? -90.0 : 0
            while let d = e.nextDeadlineMs, d < t { e.advance(toMs: d); seen.insert(e.orientation) }
            e.feed(poseSample(t: t, phi: phi, theta: 0))
            seen.insert(e.orientation)
            t += period
        }
        #expect(seen == [.normal], "\(hz) Hz: \(seen)")
    }

    @Test("longer RestMs and OrientationSettleMs are honoured")
    func longerSettleIsHonoured() throws {
        var slow = EngineTunables.default
        slow.orientationSettleMs = 600
        slow.restMs = 600
        let ms = try #require(latency(hz: 50, phi: -90, expected: .leftUp, tunables: slow))
        #expect(ms >= 600 - 20 && ms <= 600 + 20, "decided after \(ms) ms")
    }

    @Test("a rest keeps following small changes (the mean is taken once, as the rest is seen)")
    func restFollowsSmallSteps() {
        // 32° then 28° off normal, both within one 5° rest: 45 − 15 − 2 = 28 goes back.
        var e = OrientationEngine()
        var t: Int64 = 0
        for phi in [0.0, 62, 32, 28] {
            for _ in 0..<50 { e.feed(poseSample(t: t, phi: phi, theta: 0)); t += 20 }
            if phi == 62 { #expect(e.orientation == .rightUp) }
        }
        #expect(e.orientation == .normal)
    }
}

/// The stride estimate lags the faster decisions; it must not overturn one.
@Suite("Stride estimate")
struct StrideEstimateTests {
    @Test("a step, decided at rest, stays decided while the slow stride estimate catches up", arguments: [10.0, 50, 200])
    func stepIsNotOverturned(hz: Double) {
        var e = OrientationEngine()
        var changes: [Orientation] = []
        let period = 1000 / hz
        var t = 0.0
        while t < 3000 {
            let s = poseSample(t: Int64(t), phi: t < 1000 ? 0 : -90, theta: 0)
            if e.feed(s), changes.last != e.orientation { changes.append(e.orientation) }
            t += period
        }
        #expect(changes == [.normal, .leftUp], "\(hz) Hz: \(changes)")
    }
}
