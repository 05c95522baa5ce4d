import Testing
import OrientationAPI
@testable import OrientationEngine

/// Between the readings of a sensor that keeps sending (an IIO sensor polled at 10 Hz),
/// the held reading is no news: a change waits for the next reading, or for the silence
/// of a sensor that has stopped sending (its last reading then stands).
@Suite("Held readings")
struct HeldReadingTests {
    /// Feeds `samples` the way the daemon does: before each one, the engine's deadlines
    /// that fall before it are completed with the held reading (the settle timer). After the
    /// last sample the timer keeps running until `silenceUntil`. Returns every change.
    func run(_ samples: [Sample], silenceUntil end: Int64? = nil, tunables: EngineTunables = .default,
             delivery: SensorDelivery = .onChange) -> [Change] {
        var e = OrientationEngine(tunables: tunables, delivery: delivery)
        var out: [Change] = []
        func record(_ t: Int64) { out.append(Change(t: t, orientation: e.orientation, tilt: e.tilt)) }
        for s in samples {
            while let d = e.nextDeadlineMs, d < s.timeMs {
                if e.advance(toMs: d) { record(d) }
            }
            if e.feed(s) { record(s.timeMs) }
        }
        if let end {
            while let d = e.nextDeadlineMs, d <= end {
                if e.advance(toMs: d) { record(d) }
            }
        }
        return out
    }

    /// One second of 10 Hz readings upright, vertical.
    static let upright = (0...10).map { poseSample(t: Int64($0) * 100, phi: 0, theta: 0) }
    /// The same, its last two readings taken mid-stride (1.4 g and 0.6 g: a runner's bounce).
    static let running = upright.dropLast(2) + [poseSample(t: 900, phi: 0, theta: 0, g: 9.81 * 1.4),
                                                poseSample(t: 1000, phi: 0, theta: 0, g: 9.81 * 0.6)]
    static let backUpright = (12...20).map { poseSample(t: Int64($0) * 100, phi: 0, theta: 0) }

    @Test("running at 10 Hz, one reading that jumped to another orientation is not reported before the next reading")
    func loneReadingWaitsForTheNext() {
        // After a stride's reading, one that happens to read 1 g in the wrong direction,
        // then the device as it was: nothing changes (without the rule the held reading
        // completed the change 50 ms after it, and the next reading turned it back).
        let jump = poseSample(t: 1100, phi: 90, theta: 0)
        let changes = run(Self.running + [jump] + Self.backUpright)
        #expect(orientationChanges(changes).map(\.1) == [.normal], "\(changes)")
    }

    @Test("a 10 Hz poll whose times jitter ±30 %: a reading after a short interval is not silence when the next comes late")
    func jitteredPollIsNoSilence() {
        // Intervals of 70 and 130 ms in turn (a loaded machine's poll), the device upright;
        // one reading in the wrong direction at 1 g comes after a 70 ms interval and the
        // next, upright, 130 ms later. Half as long again as the last interval (105 ms)
        // would take that for silence and decide on the lone reading; the sensor usually
        // sends every 100 ms, so the next reading is waited for.
        var samples: [Sample] = []
        var t: Int64 = 0
        for n in 0..<30 {
            samples.append(poseSample(t: t, phi: 0, theta: 0))
            t += n % 2 == 0 ? 70 : 130
        }
        // t follows a 130 ms interval here: the jump comes 70 ms after the last reading.
        samples.append(poseSample(t: t - 60, phi: 90, theta: 0))
        t += 70
        for n in 0..<10 {
            samples.append(poseSample(t: t, phi: 0, theta: 0))
            t += n % 2 == 0 ? 130 : 70
        }
        let changes = run(samples)
        #expect(orientationChanges(changes).map(\.1) == [.normal], "\(changes)")
    }

    @Test("running at 10 Hz, one reading that jumped face-up does not change the tilt before the next reading")
    func loneReadingDoesNotTilt() {
        let jump = poseSample(t: 1100, phi: 0, theta: 90)
        let changes = run(Self.running + [jump] + Self.backUpright)
        #expect(tiltChanges(changes).map(\.1) == [.vertical], "\(changes)")
    }

    @Test("a still device turned between two polls (one step) is reported at the next poll, which confirms it")
    func stepFromStillCompletesAtTheNextReading() throws {
        let turned = (11...13).map { poseSample(t: Int64($0) * 100, phi: 90, theta: 0) }
        let changes = run(Self.upright + turned)
        let change = try #require(orientationChanges(changes).last)
        #expect(change.1 == .rightUp && change.0 == 1200, "\(changes)")
    }

    @Test("a fast turn seen as one reading during it and then the new pose is reported at the second reading of it")
    func fastTurnCompletesAtTheSecondReading() throws {
        // Still upright, one reading halfway through a quarter turn that also carries the
        // turn's force (1.4 g), then right-up: the device was still two readings before.
        let during = poseSample(t: 1100, phi: 45, theta: 0, g: 9.81 * 1.4)
        let turned = (12...14).map { poseSample(t: Int64($0) * 100, phi: 90, theta: 0) }
        let changes = run(Self.upright + [during] + turned)
        let change = try #require(orientationChanges(changes).last)
        #expect(change.1 == .rightUp && change.0 == 1300, "\(changes)")
    }

    @Test("a knock on a still device whose one reading happens to be 1 g upside down is not reported")
    func knockFromStillIsNotAStep() {
        // The reading is a shock (2 g from the estimate), so it is no step from still; the
        // next reading, a little late (polls jitter), shows the device as it was.
        let knock = poseSample(t: 1100, phi: 180, theta: 0)
        let after = (0...8).map { poseSample(t: 1205 + Int64($0) * 100, phi: 0, theta: 0) }
        let changes = run(Self.upright + [knock] + after)
        #expect(orientationChanges(changes).map(\.1) == [.normal], "\(changes)")
    }

    @Test("the same reading followed by silence is reported once the sensor has been silent longer than it sends")
    func loneReadingThenSilenceCompletes() throws {
        let jump = poseSample(t: 1100, phi: 90, theta: 0)
        var e = OrientationEngine()
        for s in Self.running { e.feed(s) }
        e.feed(jump)
        // Not before the next reading would have come (one interval, and half of one more
        // for jitter): a polled sensor's next reading gets there first, and no timer fires
        // between polls.
        let next = e.nextDeadlineMs
        let deadline = try #require(next)
        #expect(deadline >= 1100 + 150, "deadline \(deadline)")
        let changes = run(Self.running + [jump], silenceUntil: 2000)
        let turned = try #require(orientationChanges(changes).last)
        #expect(turned.1 == .rightUp && turned.0 >= 1250 && turned.0 <= 1400, "\(changes)")
    }

    @Test("a streaming sensor's gap is a dropout: a lone reading before it is decided by the reading after it")
    func streamGapIsNoSilence() throws {
        let jump = poseSample(t: 1100, phi: 90, theta: 0)
        // The run goes on through a 0.6 s dropout: upright again after it.
        let after = (17...25).map { poseSample(t: Int64($0) * 100, phi: 0, theta: 0) }
        let went = run(Self.running + [jump] + after, delivery: .stream)
        #expect(orientationChanges(went).map(\.1) == [.normal], "\(went)")
        var e = OrientationEngine(delivery: .stream)
        for s in Self.running + [jump] { e.feed(s) }
        #expect(e.nextDeadlineMs == nil, "a deadline in a stream's gap")
        // Still right-up after the gap: decided at that reading.
        let held = (17...25).map { poseSample(t: Int64($0) * 100, phi: 90, theta: 0) }
        let turned = try #require(orientationChanges(run(Self.running + [jump] + held, delivery: .stream)).last)
        #expect(turned.1 == .rightUp && turned.0 >= 1700 && turned.0 <= 1800, "\(turned)")
        // The same lone reading from a sensor that sends only what changes stands.
        let onChange = run(Self.running + [jump], silenceUntil: 2000)
        #expect(orientationChanges(onChange).last?.1 == .rightUp, "\(onChange)")
    }

    @Test("how long a sensor takes to send is measured between its readings, not from a held one")
    func intervalIsBetweenReadings() throws {
        var e = OrientationEngine()
        for s in Self.running { e.feed(s) }
        e.advance(toMs: 1050)  // a timer between two readings
        e.feed(poseSample(t: 1100, phi: 90, theta: 0))
        let next = e.nextDeadlineMs
        let deadline = try #require(next)
        #expect(deadline >= 1100 + 150, "deadline \(deadline): silence counted from a 50 ms interval")
    }

    @Test("a change that is due between two readings of a sensor that keeps sending waits for the next one")
    func dueBetweenReadingsWaitsForTheNext() throws {
        // With RestMs 170 the rest is 20 ms short at the second reading in right-up: not
        // decided at 1220 on the held reading, but at the third reading, 1300. (The device
        // lay still before: a pick-up would take the step at its second reading, 1200, on
        // calm; this is about the rest's deadline.)
        var tunables = EngineTunables.default
        tunables.restMs = 170
        tunables.pickUpMs = 0
        let turn = (11...13).map { poseSample(t: Int64($0) * 100, phi: 90, theta: 0) }
        let changes = run(Self.upright + turn, tunables: tunables)
        let turned = try #require(orientationChanges(changes).last)
        #expect(turned.1 == .rightUp && turned.0 == 1300, "\(changes)")
    }
}

/// A reading under linear acceleration says little about where gravity is.
@Suite("Readings far from 1 g")
struct AcceleratedReadingTests {
    @Test("readings that bounce between 0.6 and 1.4 g are never calm: the stride estimate decides, at 25 and 50 Hz",
          arguments: [25.0, 50])
    func decidedOnTheStrideEstimate(hz: Double) {
        let period = 1000 / hz
        let strideLatency = EngineTunables.default.strideMs + 2 * EngineTunables.default.strideFilterMs
        for phase in 0..<4 {
            var e = OrientationEngine()
            var t = 0.0
            while t < 1000 {
                e.feed(poseSample(t: Int64(t), phi: 0, theta: 0))
                t += period
            }
            // Right-up with ±8° of tremor (never at rest), every other reading at 0.6 g and
            // the others at 1.4 g (their mean is gravity, as over any stride).
            var i = phase
            var seen = Set<Orientation>()
            while t < 1000 + strideLatency {
                let bounce = i % 2 == 0 ? 0.6 : 1.4
                let s = poseSample(t: Int64(t), phi: 90 + (i / 2 % 2 == 0 ? 8 : -8), theta: 0, g: 9.81 * bounce)
                e.feed(s)
                seen.insert(e.orientation)
                // Not on the calm rule: the readings are never calm.
                #expect(t >= 1000 + EngineTunables.default.strideMs || e.orientation == .normal,
                        "decided at \(Int64(t)) ms (\(hz) Hz, phase \(phase))")
                i += 1
                t += period
            }
            #expect(e.orientation == .rightUp && seen == [.normal, .rightUp], "\(hz) Hz, phase \(phase): \(seen)")
        }
    }
}

extension HeldReadingTests {
    @Test("one reading past the line is no change, even where no settle time is asked for")
    func oneReadingIsNeverEnough() {
        // A 2 Hz poll (a PollIntervalMs of 500) of a phone held at the leave angle, one of
        // its readings 1.5° past it. With the settle times configured away, every wait a
        // rule asks for is over at that reading (a proposal is credited half an interval
        // back); ConfirmReadings still wants a second reading, and the next one is back.
        var tunables = EngineTunables.default
        tunables.orientationSettleMs = 0
        tunables.edgeSettleMs = 0
        var samples = [poseSample(t: 0, phi: 0, theta: 0)]
        samples += (1...10).map { poseSample(t: Int64($0) * 500, phi: $0 % 2 == 0 ? -57 : -58, theta: 0) }
        samples.append(poseSample(t: 5500, phi: -61.5, theta: 0))
        samples += (12...16).map { poseSample(t: Int64($0) * 500, phi: -58, theta: 0) }
        let changes = run(samples, tunables: tunables, delivery: .stream)
        #expect(orientationChanges(changes).map(\.1) == [.normal], "\(changes)")
        // Two readings past it are a change.
        let held = Array(samples.prefix(11)) + (11...16).map { poseSample(t: Int64($0) * 500, phi: -61.5, theta: 0) }
        #expect(orientationChanges(run(held, tunables: tunables, delivery: .stream)).map(\.1) == [.normal, .leftUp])
    }
}
