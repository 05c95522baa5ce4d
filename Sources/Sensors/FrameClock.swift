/// Puts the frames of one read of an IIO buffer on the monotonic clock.
///
/// A buffer holds several frames when the daemon reads it late (a busy loop, a resume, a
/// hardware FIFO that fills before it interrupts), and all of them arrive in one read.
/// Stamped with the read's time they would be several readings of one instant: the
/// engine would see no time pass across them and a rest of several frames as none. So:
///
/// - where the device's timestamp channel counts CLOCK_MONOTONIC (the daemon sets
///   `current_timestamp_clock`) and every timestamp is plausible (not after the read,
///   not more than ``maxBacklogMs`` before it, never going back), the frames keep their
///   own times;
/// - otherwise the last frame is stamped with the read's time and each earlier one a
///   sampling period before it (the period of the rate the device was set to, else the
///   time since the previous read shared among the frames), never before the previous
///   read's last frame. A device that sends on change (evdev) has neither: there every
///   frame without a believable timestamp takes the read's time.
///
/// evdev's input events carry their own timestamps too; the same rules apply to them.
struct FrameClock: Sendable {
    /// A buffer longer than this behind the read is not believed: 16 frames at 10 Hz.
    static let maxBacklogMs: Int64 = 2000

    /// The sampling period the device was set to, when known.
    let periodMs: Double?
    /// Whether the timestamp channel counts CLOCK_MONOTONIC.
    let timestampsAreMonotonic: Bool
    /// Whether frames without believable timestamps are spread back from the read (a
    /// device that samples at a rate) or all take the read's time (one that sends on
    /// change, whose previous read may be minutes ago).
    let spreadsFrames: Bool
    /// The last stamp given.
    private(set) var lastMs: Int64?

    init(periodMs: Double?, timestampsAreMonotonic: Bool, spreadsFrames: Bool = true) {
        self.periodMs = periodMs.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        self.timestampsAreMonotonic = timestampsAreMonotonic
        self.spreadsFrames = spreadsFrames
    }

    /// The stamps of `timestampsNs.count` frames read at `nowMs`; `timestampsNs` holds
    /// each frame's timestamp channel (nil when it has none). `usedTimestamps` is false
    /// when the frames had timestamps that could not be believed.
    mutating func stamps(readAtMs nowMs: Int64, timestampsNs: [Int64?]) -> (stamps: [Int64], usedTimestamps: Bool) {
        let count = timestampsNs.count
        guard count > 0 else { return ([], true) }
        let floor = lastMs ?? Int64.min
        var believed = false
        if timestampsAreMonotonic {
            let ms = timestampsNs.map { $0.map { $0 / 1_000_000 } }
            var previous = floor
            believed = ms.allSatisfy { t in
                guard let t, t <= nowMs, t >= nowMs - Self.maxBacklogMs, t >= previous else { return false }
                previous = t
                return true
            }
            if believed {
                let stamps = ms.map { $0 ?? nowMs }
                lastMs = stamps.last
                return (stamps, true)
            }
        }
        let period: Double
        if !spreadsFrames {
            period = 0
        } else if let periodMs {
            period = periodMs
        } else if let lastMs, nowMs > lastMs {
            period = Double(nowMs - lastMs) / Double(count)
        } else {
            period = 0
        }
        var stamps: [Int64] = []
        stamps.reserveCapacity(count)
        for k in 0..<count {
            let back = Int64((Double(count - 1 - k) * period).rounded())
            stamps.append(max(nowMs - back, floor))
        }
        lastMs = stamps.last
        let hadTimestamps = timestampsNs.contains { $0 != nil }
        return (stamps, !(timestampsAreMonotonic && hadTimestamps))
    }
}
