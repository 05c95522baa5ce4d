import Foundation
import Testing
@testable import OrientationEngine
import TestSupport

/// `OrientationDepthDeg`: a proposal's settle time counts a quarter at the leave angle and
/// in full from 10° past it. People hold phones at every grip angle, so poses near the
/// boundary are common: the peaks of a swinging hand, a phone at the ear.
@Suite("Depth past the boundary")
struct DepthTests {
    /// Normal for 1 s at 50 Hz, then held still at `phi`. How long until the orientation
    /// became `expected` (nil: not within 3 s).
    func stepLatency(phi: Double, expected: Orientation, tunables: EngineTunables = .default) -> Int64? {
        var e = OrientationEngine(tunables: tunables)
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 20 }
        let step = t
        while t < 4000 {
            e.feed(poseSample(t: t, phi: phi, theta: 0))
            if e.orientation == expected { return t - step }
            t += 20
        }
        return nil
    }

    @Test("a pose held 2° past the leave angle turns, after about four times as long as one at the centre")
    func justPastTheBoundaryTakesLonger() throws {
        let centre = try #require(stepLatency(phi: -90, expected: .leftUp))
        let near = try #require(stepLatency(phi: -62, expected: .leftUp))
        // A quarter at 60°, rising to 1 at 70°: 0.4 at 62°, so 2.5 times the settle time.
        #expect(near >= 2 * centre && near <= 300, "at the centre \(centre) ms, 2° past \(near) ms")
        // 10° past the leave angle and beyond, no penalty.
        let deep = try #require(stepLatency(phi: -70, expected: .leftUp))
        #expect(deep == centre, "10° past \(deep) ms, at the centre \(centre) ms")
        var off = EngineTunables.default
        off.orientationDepthDeg = 0
        #expect(stepLatency(phi: -62, expected: .leftUp, tunables: off) == centre)
    }

    @Test("a hand swinging about 40° off normal does not follow its peaks 5° past the leave angle")
    func swingPeaksAreNotFollowed() {
        // Walking with the phone held at a slant: φ swings between −15° and −65° once a
        // second (past the 60° at which normal is left for about a fifth of each swing,
        // slowly at the turnaround, where the direction is steady).
        func run(_ tunables: EngineTunables) -> Set<Orientation> {
            var e = OrientationEngine(tunables: tunables)
            var seen = Set<Orientation>()
            for t in stride(from: Int64(0), to: 20_000, by: 10) {
                let phi = t < 1000 ? 0 : -40 - 25 * sin(2 * .pi * Double(t - 1000) / 1000)
                e.feed(poseSample(t: t, phi: phi, theta: 10))
                seen.insert(e.orientation)
            }
            return seen
        }
        let seen = run(.default)
        #expect(seen == [.normal], "reported \(seen)")
        // Without the ramp the same hand turns the screen (what the test is about).
        var off = EngineTunables.default
        off.orientationDepthDeg = 0
        #expect(run(off).contains(.leftUp))
    }

    @Test("a silent sensor held just past the boundary completes at the weighted deadline")
    func silentSensorNearTheBoundary() throws {
        // An evdev accelerometer: two reports of the new pose, then nothing; the deadlines
        // must include the weight, or the held readings would wake up too early and often.
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 0)); t += 20 }
        e.feed(poseSample(t: 1000, phi: -62, theta: 0))
        e.feed(poseSample(t: 1010, phi: -62, theta: 0))
        var wakeups = 0
        while e.orientation == .normal, let d = e.nextDeadlineMs, wakeups < 20 {
            e.advance(toMs: d)
            wakeups += 1
            t = d
        }
        #expect(e.orientation == .leftUp)
        #expect(t - 1000 >= 200 && t - 1000 <= 350, "decided \(t - 1000) ms after the burst")
        #expect(wakeups <= 5, "\(wakeups) wake-ups")
    }
}
