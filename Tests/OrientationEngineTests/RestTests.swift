import Testing
@testable import OrientationEngine
import TestSupport

/// The rest path: a device that stops moving is decided `SteadyMs` after it stopped, at
/// every rate, while a hand that still moves is not "at rest".
@Suite("At rest")
struct RestTests {
    static let steady = Int64(EngineTunables.default.steadyMs)

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

    @Test("a step held still is decided SteadyMs after it, at 10, 25, 50 and 200 Hz", arguments: [10.0, 25, 50, 200])
    func stepAtEveryRate(hz: Double) throws {
        let period = Int64(1000 / hz)
        for (phi, expected) in [(-90.0, Orientation.leftUp), (90, .rightUp), (180, .bottomUp)] {
            let ms = try #require(latency(hz: hz, phi: phi, expected: expected))
            // The first sample of the new pose begins the rest (credited half an interval).
            #expect(ms >= Self.steady - period && ms <= Self.steady + period,
                    "\(expected.rawValue) at \(hz) Hz after \(ms) ms")
        }
    }

    @Test("without the rest path the same step at 50 Hz waits for the filters and the shock hold")
    func slowerWithoutRest() throws {
        var off = EngineTunables.default
        off.restAngleDeg = 0
        let without = try #require(latency(hz: 50, phi: -90, expected: .leftUp, tunables: off))
        let with = try #require(latency(hz: 50, phi: -90, expected: .leftUp))
        #expect(without >= with + 40, "rest \(with) ms, filters \(without) ms")
    }

    @Test("a hand still moving (±8° of tremor) is not at rest: the step waits for the filters")
    func tremorIsNotRest() throws {
        // Alternating ±8°: every sample is 16° from the one before, more than RestAngleDeg.
        let ms = try #require(latency(hz: 50, phi: -90, expected: .leftUp, jitter: { $0 % 2 == 0 ? 8 : -8 }))
        #expect(ms > Self.steady + 40, "decided after \(ms) ms")
    }

    @Test("a silent sensor's single sample of the new pose is decided at the rest's deadline")
    func silentStepCompletesAtSteadyMs() throws {
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 20 }
        e.feed(poseSample(t: 1000, phi: -90, theta: 0))  // one event burst, then nothing
        #expect(e.orientation == .normal)
        var now: Int64 = 1000
        var wakeups = 0
        while e.orientation == .normal, let d = e.nextDeadlineMs, wakeups < 10 {
            now = d
            e.advance(toMs: d)
            wakeups += 1
        }
        #expect(e.orientation == .leftUp)
        #expect(now - 1000 <= Self.steady, "decided \(now - 1000) ms after the sample")
        #expect(wakeups <= 2, "\(wakeups) wake-ups")
        // Decided and still: the timer goes quiet.
        var after = 0
        while let d = e.nextDeadlineMs, after < 10 { e.advance(toMs: d); after += 1 }
        #expect(e.nextDeadlineMs == nil && after <= 3, "\(after) more wake-ups")
    }

    @Test("a settle time longer than SteadyMs is honoured at rest too")
    func longerSettleIsHonoured() throws {
        var slow = EngineTunables.default
        slow.orientationSettleMs = 600
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

    @Test("a tilt held for less than TiltSettleMs (a stride, a leg's swing) is not reported")
    func briefTiltIsNotReported() {
        let settle = Int64(EngineTunables.default.tiltSettleMs)
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 5)); t += 10 }
        #expect(e.tilt == .vertical)
        // 150 ms at 30°: how long a stride tips a phone in a front pocket past 20° in the
        // real recordings (the device itself stays vertical).
        let start = t
        while t < start + 150 { e.feed(poseSample(t: t, phi: 0, theta: 30)); t += 10 }
        while t < start + 2000 {
            e.feed(poseSample(t: t, phi: 0, theta: 5))
            #expect(e.tilt == .vertical, "at \(t - start) ms")
            t += 10
        }
        // Held: reported once it has lasted TiltSettleMs.
        let hold = t
        var reported: Int64?
        while t < hold + 1000 {
            e.feed(poseSample(t: t, phi: 0, theta: 30))
            if reported == nil && e.tilt == .tiltedUp { reported = t - hold }
            t += 10
        }
        #expect(reported.map { $0 >= settle && $0 <= settle + 100 } == true, "reported after \(String(describing: reported)) ms")
    }
}
