import Foundation
import Testing
import OrientationAPI
@testable import OrientationEngine

/// A configuration may set any tunable anywhere in its range: the engine must then still
/// run, whatever it decides. (An obtuse `GyroDisagreeDeg` once made a helper meant for
/// acute angles give every gyroscope up.)
@Suite("Tunables at the ends of their ranges")
struct TunableRangeTests {
    /// Every key with the lowest and the highest value its range allows.
    static let extremes: [(key: String, value: Double)] = EngineTunables.entries.flatMap { e in
        let top = e.max == .infinity ? 1e9 : e.maxInclusive ? e.max : e.max.nextDown
        return [(e.key, e.min), (e.key, top)]
    }

    /// Upright at rest, turned to left-up and held, shaken (2 g pulses), laid face-up,
    /// picked up to normal; at 100 Hz with a gyroscope turning with it (or at 10 Hz, as a
    /// poll, without one). Between readings the engine's deadlines are completed, as the
    /// daemon's timer does. Returns how many deadlines did not move the clock on.
    func runScenario(_ tunables: EngineTunables, gyroscope: Bool, stepMs: Int64) -> (engine: OrientationEngine, stuck: Int) {
        var e = OrientationEngine(tunables: tunables, delivery: gyroscope ? .onChange : .stream)
        var stuck = 0
        let phi = { (t: Double) -> Double in t < 1000 ? 0 : t < 1500 ? -90 * (t - 1000) / 500 : t < 4000 ? -90 : 0 }
        let theta = { (t: Double) -> Double in t < 4000 ? 0 : t < 4500 ? 85 * (t - 4000) / 500 : t < 5500 ? 85 : t < 6000 ? 85 - 75 * (t - 5500) / 500 : 10 }
        var t: Int64 = 0
        while t <= 8000 {
            if let d = e.nextDeadlineMs, d < t {
                var last = Int64.min
                var deadline: Int64? = d
                while let due = deadline, due < t {
                    if due <= last { stuck += 1; break }
                    last = due
                    e.advance(toMs: due)
                    deadline = e.nextDeadlineMs
                }
            }
            let time = Double(t)
            if gyroscope {
                let rate = (phi(time + 5) - phi(time - 5)) / 10 * 1000 * .pi / 180
                e.feedGyroscope(noisyGyroscope(t: t, z: rate))
            }
            let shaken = (2500..<3000).contains(t) && (t / 50) % 2 == 0
            e.feed(poseSample(t: t, phi: phi(time), theta: theta(time), g: shaken ? 9.81 * 2 : 9.81))
            t += stepMs
        }
        return (e, stuck)
    }

    @Test("every tunable at either end of its range: the engine runs a turn, a shake, flat and a pick-up, its deadlines ahead of it",
          arguments: [true, false])
    func extremesRun(gyroscope: Bool) throws {
        for (key, value) in Self.extremes {
            var tunables = EngineTunables.default
            try tunables.set(key: key, value: String(value))
            let r = runScenario(tunables, gyroscope: gyroscope, stepMs: gyroscope ? 10 : 100)
            #expect(r.stuck == 0, "\(key) = \(value): a deadline that does not move the clock on")
            // The first reading is decided at once, and nothing makes a defined
            // orientation undefined again.
            #expect(r.engine.orientation != .undefined, "\(key) = \(value)")
        }
    }
}
