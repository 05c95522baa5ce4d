import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine
import TestSupport

/// Tilt under a stride's forces: judged on a plain average of the readings, held off by knocks only.
@Suite("Tilt while walking and running")
struct TiltTests {
    @Test("a tilt for a stride's moment (a leg's swing with the phone in a pocket) is not reported; a held one is")
    func briefTiltIsNotReported() {
        let settle = Int64(EngineTunables.default.tiltSettleMs)
        let filter = Int64(EngineTunables.default.tiltFilterMs)
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 5)); t += 10 }
        #expect(e.tilt == .vertical)
        // A stride tips a phone in a front pocket: the elevation rises to 30° and falls
        // back over 250 ms (above 22° for about 150 ms), as in the real recordings, while
        // the device itself stays vertical.
        let start = t
        while t < start + 250 {
            let bump = sin(.pi * Double(t - start) / 250)
            e.feed(poseSample(t: t, phi: 0, theta: 5 + 25 * bump))
            t += 10
        }
        while t < start + 2000 {
            e.feed(poseSample(t: t, phi: 0, theta: 5))
            #expect(e.tilt == .vertical, "at \(t - start) ms")
            t += 10
        }
        // Held: reported once the tilt estimate (a plain average) has crossed 22° and
        // TiltSettleMs passed (or a rest, at the readings' own elevation, once the device is
        // held still).
        let hold = t
        var reported: Int64?
        while t < hold + 1000 {
            e.feed(poseSample(t: t, phi: 0, theta: 30))
            if reported == nil && e.tilt == .tiltedUp { reported = t - hold }
            t += 10
        }
        #expect(reported.map { $0 >= settle - 10 && $0 <= settle + filter + 100 } == true, "reported after \(String(describing: reported)) ms")
    }

    /// The tilts reported while a phone held vertical in a running pocket is read at
    /// 10 Hz: of every nine readings, five happen to fall where the pocket tips it
    /// 22–38° back at about 1 g (calm-looking, though too far apart for a rest), four on
    /// the stride's jolts along gravity (0.4 and 1.6 g). Over a second the readings
    /// average to less than 21°: vertical.
    func tiltsInAPocketAt10Hz(_ tunables: EngineTunables = .default) -> Set<Tilt> {
        var e = OrientationEngine(tunables: tunables)
        var seen: Set<Tilt> = []
        for (n, t) in stride(from: Int64(0), to: 20_000, by: 100).enumerated() {
            let phase = n % 9
            let sample = t < 2000 ? poseSample(t: t, phi: 0, theta: 0)
                : phase < 5 ? poseSample(t: t, phi: 0, theta: [22, 34, 26, 38, 30][phase], g: 9.81 * [0.96, 1.04, 1, 0.98, 1.02][phase])
                : poseSample(t: t, phi: 0, theta: 0, g: 9.81 * (phase % 2 == 0 ? 1.6 : 0.4))
            e.feed(sample)
            seen.insert(e.tilt)
        }
        return seen
    }

    @Test("from sparse readings, a tilt calm would commit waits for the stride estimate to agree")
    func sparseReadingsNeedTheStrideEstimate() {
        #expect(tiltsInAPocketAt10Hz() == [.vertical])
        var dense = EngineTunables.default
        dense.sparseReadingMs = 1000
        #expect(tiltsInAPocketAt10Hz(dense).contains(.tiltedUp))
    }

    @Test("from sparse readings, calm all along commits a tilt without the stride estimate (a phone held in front on a walk)")
    func calmWalkAt10HzIsFollowed() {
        // 10 Hz, as the daemon polls: a walk with the phone held in front, 30° back, with a
        // step's small bounce (±0.08 g: never a rest) and sway (±3°); then lowered to 10°
        // over 300 ms and held so. Every reading is calm; the stride estimate (a second's
        // average) crosses 18° only about a second later.
        var e = OrientationEngine()
        var t: Int64 = 0
        var n = 0
        func walk(theta: Double) {
            let step = n % 5
            e.feed(poseSample(t: t, phi: 0, theta: theta + [0, 3, 0, -3, 0][step], g: 9.81 * [1, 1.08, 1, 0.92, 1.04][step]))
            t += 100
            n += 1
        }
        while t < 3000 { walk(theta: 30) }
        #expect(e.tilt == .tiltedUp)
        let lower = t
        while t < lower + 300 { walk(theta: 30 - 20 * Double(t - lower) / 300) }
        let lowered = t
        var reported: Int64?
        while t < lowered + 2000 {
            walk(theta: 10)
            if reported == nil && e.tilt == .vertical { reported = t - lowered }
        }
        // TiltSettleMs after the tilt estimate passes 18°, a reading or two later.
        #expect(reported.map { $0 <= 500 } == true, "vertical after \(String(describing: reported)) ms")
        #expect(e.orientation == .normal)
    }

    @Test("tilt's calm forgets a jolt over TiltDisturbanceDecayMs, not DisturbanceDecayMs")
    func tiltCalmHasItsOwnMemory() throws {
        // 100 Hz: upright, then leaned back to 35° and held with a hand's unsteadiness
        // (±6 % in length: never a rest), one jolt of 3 g 100 ms into the new tilt. With
        // tilt's memory 300 ms and the orientation's 50 ms, the tilt waits 300·ln(8/2) ms
        // after the jolt (8 times calm against a tilt limit of 2).
        var tunables = EngineTunables.default
        tunables.disturbanceDecayMs = 50
        tunables.tiltDisturbanceDecayMs = 300
        tunables.tiltDisturbanceLimit = 2
        var e = OrientationEngine(tunables: tunables)
        var t: Int64 = 0
        var tilted: Int64?
        while t < 4000 {
            let wobble = [1.0, 1.06, 1.0, 0.94][Int(t / 10) % 4]
            let sample = t < 2000 ? poseSample(t: t, phi: 0, theta: 0, g: 9.81 * wobble)
                : t == 2100 ? poseSample(t: t, phi: 0, theta: 35, g: 9.81 * 3)
                : poseSample(t: t, phi: 0, theta: 35, g: 9.81 * wobble)
            e.feed(sample)
            if tilted == nil && e.tilt == .tiltedUp { tilted = t }
            t += 10
        }
        let at = try #require(tilted)
        #expect(at >= 2100 + 400, "tilted-up at \(at) ms")
    }

    @Test("a runner who tilts the phone back sees the tilt (on the stride estimate)")
    func runnerTilts() {
        // 100 Hz; a bounce of ±0.6 g along gravity at 2.8 Hz (a jog: the device's |a| swings
        // 0.4–1.6 g, its direction does not), first held vertical, then leaned back 40°.
        var e = OrientationEngine()
        var t: Int64 = 0
        func run(theta: Double, ms: Int64) {
            let end = t + ms
            while t < end {
                let bounce = 1 + 0.6 * sin(2 * .pi * 2.8 * Double(t) / 1000)
                e.feed(poseSample(t: t, phi: 0, theta: theta, g: 9.81 * bounce))
                t += 10
            }
        }
        run(theta: 5, ms: 1000)
        #expect(e.tilt == .vertical)
        let lean = t
        var seen: Int64?
        while t < lean + 2000 {
            run(theta: 40, ms: 10)
            if seen == nil && e.tilt == .tiltedUp { seen = t - lean }
        }
        let strideLatency = Int64(EngineTunables.default.strideMs + 2 * EngineTunables.default.strideFilterMs)
        #expect(seen.map { $0 <= strideLatency } == true, "tilted-up after \(String(describing: seen)) ms")
        #expect(e.orientation == .normal)
    }

    @Test("a knock's readings, still in the tilt filter after it, commit no tilt")
    func knockCommitsNoTilt() {
        // 100 Hz: upright with a hand's unsteadiness (never a rest); one knock of 150 ms,
        // 1.3 to 2.7 g pointing 50–70° toward the floor (more than TiltDisturbanceLimit
        // times calm), then upright again. The plain tilt filter holds the knock for a while
        // after it: the tilt must stand TiltSettleMs on calmer readings, by which time the
        // filter has forgotten it.
        var e = OrientationEngine()
        var seen: Set<Tilt> = []
        for t in stride(from: Int64(0), to: 4000, by: 10) {
            let wobble = [1.0, 1.03, 1.0, 0.97][Int(t / 10) % 4]
            let knock = t >= 2000 && t < 2150
            let k = Double(t - 2000) / 150
            let sample = knock ? poseSample(t: t, phi: 0, theta: -50 - 20 * sin(.pi * k), g: 9.81 * (1.3 + 1.4 * sin(.pi * k)))
                : poseSample(t: t, phi: 0, theta: 0, g: 9.81 * wobble)
            e.feed(sample)
            seen.insert(e.tilt)
        }
        #expect(seen == [.vertical])
    }

    @Test("a rest's tilt is not overruled by the stride estimate's lagging average")
    func restIsNotOverruledByTheStrideEstimate() {
        // Lying face up for 3 s, picked up slowly (1.5 s) to 12° and held still: the stride
        // estimate (a second's average) still reads tilted-up for StrideMs after the rest
        // has shown vertical.
        var e = OrientationEngine()
        var changes: [Tilt] = []
        for t in stride(from: Int64(0), to: 9000, by: 10) {
            let theta = t < 3000 ? 88 : max(12, 88 - 76 * Double(t - 3000) / 1500)
            e.feed(poseSample(t: t, phi: 0, theta: theta))
            if changes.last != e.tilt { changes.append(e.tilt) }
        }
        #expect(changes == [.faceUp, .tiltedUp, .vertical])
    }
}

@Suite("Tilt from a silent sensor")
struct SilentTiltTests {
    @Test("a small tilt across 20° sent as one reading, then silence, completes at the deadlines")
    func smallTiltStepCompletes() {
        // 18° → 25°: the gravity and motion estimates reach the reading before the
        // tilt estimate crosses 22°, so the deadline must wait for that one too.
        var e = OrientationEngine()
        var t: Int64 = 0
        while t < 1000 { e.feed(poseSample(t: t, phi: 0, theta: 18)); t += 20 }
        #expect(e.tilt == .vertical)
        e.feed(poseSample(t: 1000, phi: 0, theta: 25))
        var wakeups = 0
        while e.tilt == .vertical, let d = e.nextDeadlineMs, wakeups < 50 {
            e.advance(toMs: d)
            wakeups += 1
        }
        #expect(e.tilt == .tiltedUp, "after \(wakeups) wake-ups")
        var after = 0
        while let d = e.nextDeadlineMs, after < 20 { e.advance(toMs: d); after += 1 }
        #expect(e.nextDeadlineMs == nil && after <= 5, "\(after) more wake-ups")
    }
}
