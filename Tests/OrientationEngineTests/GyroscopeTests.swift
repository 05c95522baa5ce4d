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
            let rate = (phi(time + 5) - phi(time - 5)) / 10 * 1000 * .pi / 180
            // A real gyroscope's noise: it never repeats a reading exactly.
            if let gyro, var g = gyro(Int64(t), rate) {
                g.x += 0.002 * sin(time * 0.37)
                g.y += 0.002 * cos(time * 0.53)
                e.feedGyroscope(g)
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

    @Test("a gyroscope's bias is learned at rest: a still device is calm again")
    func biasIsLearnedAtRest() {
        // Still for 5 s, then turned to left-up and held by a hand that wobbles ±7° (no
        // rest): calm decides, once the device does not turn. The gyroscope has a bias of
        // 103°/s, more than GyroCalmRateDegS: unlearned, the device "turns" for ever.
        func turned(learn: Bool) -> Orientation {
            var tunables = EngineTunables.default
            if !learn { tunables.gyroBiasLearnMs = 0 }
            var e = OrientationEngine(tunables: tunables)
            for t in stride(from: 0, to: 5800, by: 10) {
                let time = Double(t)
                let rate = t >= 5000 && t < 5300 ? -300 * Double.pi / 180 : 0
                e.feedGyroscope(GyroscopeSample(timeMs: Int64(t), x: 0.002 * sin(time * 0.37), y: 0, z: rate + 1.8))
                let phi = t < 5000 ? 0 : t < 5300 ? -0.3 * (time - 5000) : -90 + (t % 20 == 0 ? 7 : -7)
                e.feed(poseSample(t: Int64(t), phi: phi, theta: 0))
            }
            return e.orientation
        }
        #expect(turned(learn: true) == .leftUp)
        #expect(turned(learn: false) == .normal)
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

    /// A turn to left-up at 2 s, held, while the readings bounce between 0.6 and 1.4 g
    /// (never calm, never at rest), at 100 Hz; the gyroscope read every `gyroEveryMs` ms,
    /// or not at all. When left-up was reported, ms after the turn ended.
    func turnWhileBouncing(gyroEveryMs: Int64?) -> Int64? {
        var e = OrientationEngine()
        let phi = { (t: Double) -> Double in t < 2000 ? 0 : t < 2300 ? -0.3 * (t - 2000) : -90 }
        for t in stride(from: Int64(0), to: 6000, by: 10) {
            let time = Double(t)
            if let every = gyroEveryMs, t % every == 0 {
                let rate = (phi(time + 5) - phi(time - 5)) / 10 * 1000 * .pi / 180
                e.feedGyroscope(GyroscopeSample(timeMs: t, x: 0.002 * sin(time * 0.37), y: 0.002 * cos(time * 0.53), z: rate))
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
        #expect(fused <= Int64(EngineTunables.default.strideMs) + 100, "with the gyroscope after \(fused) ms")
        #expect(fused + 300 < alone, "gyroscope \(fused) ms, accelerometer alone \(alone) ms")
        // Read at 10 Hz, it is not integrated: the accelerometer's stride estimate decides.
        let slow = try #require(turnWhileBouncing(gyroEveryMs: 100))
        #expect(abs(slow - alone) <= 100, "gyroscope at 10 Hz \(slow) ms, accelerometer alone \(alone) ms")
    }
}
