import Testing
@testable import Sensors

/// Frames that arrive in one read of an IIO buffer are put back at their own times.
@Suite("FrameClock")
struct FrameClockTests {
    @Test("monotonic timestamps are kept")
    func monotonicTimestampsAreKept() {
        var clock = FrameClock(periodMs: 20, timestampsAreMonotonic: true)
        let ns: [Int64?] = [900, 920, 940, 960, 980].map { Int64($0) * 1_000_000 }
        let (stamps, believed) = clock.stamps(readAtMs: 1000, timestampsNs: ns)
        #expect(stamps == [900, 920, 940, 960, 980] && believed)
    }

    @Test("without believable timestamps, frames are spread back from the read by the sampling period")
    func spreadByThePeriod() {
        var clock = FrameClock(periodMs: 20, timestampsAreMonotonic: false)
        let (stamps, believed) = clock.stamps(readAtMs: 1000, timestampsNs: [nil, nil, nil, nil, nil])
        #expect(stamps == [920, 940, 960, 980, 1000] && believed)
    }

    @Test("timestamps after the read, far before it, or going back are not believed", arguments: [
        [Int64(990), 1010],        // after the read
        [Int64(-5000), -4980],     // more than maxBacklogMs before it
        [Int64(990), 980],         // going back
    ])
    func implausibleTimestamps(ms: [Int64]) {
        var clock = FrameClock(periodMs: 10, timestampsAreMonotonic: true)
        let (stamps, believed) = clock.stamps(readAtMs: 1000, timestampsNs: ms.map { $0 * 1_000_000 })
        #expect(stamps == [990, 1000] && !believed)
    }

    @Test("without a known rate, the time since the previous read is shared among the frames; never before it")
    func spreadSinceThePreviousRead() {
        var clock = FrameClock(periodMs: nil, timestampsAreMonotonic: false)
        _ = clock.stamps(readAtMs: 1000, timestampsNs: [nil])
        let (stamps, _) = clock.stamps(readAtMs: 1100, timestampsNs: [nil, nil, nil, nil])
        #expect(stamps == [1025, 1050, 1075, 1100])
        // A period longer than the gap: earlier frames are held at the previous stamp.
        var slow = FrameClock(periodMs: 100, timestampsAreMonotonic: false)
        _ = slow.stamps(readAtMs: 1000, timestampsNs: [nil])
        #expect(slow.stamps(readAtMs: 1050, timestampsNs: [nil, nil, nil]).stamps == [1000, 1000, 1050])
    }

    @Test("a device that sends on change: frames without believable times take the read's time")
    func onChangeFramesTakeTheReadsTime() {
        var clock = FrameClock(periodMs: nil, timestampsAreMonotonic: true, spreadsFrames: false)
        _ = clock.stamps(readAtMs: 1000, timestampsNs: [nil])
        // Minutes later, three frames with times from before the backlog limit.
        let (stamps, believed) = clock.stamps(readAtMs: 200_000, timestampsNs: [0, 1, 2])
        #expect(stamps == [200_000, 200_000, 200_000] && !believed)
        // Believable ones are kept.
        #expect(clock.stamps(readAtMs: 200_100, timestampsNs: [200_060_000_000, 200_080_000_000]).stamps == [200_060, 200_080])
    }
}
