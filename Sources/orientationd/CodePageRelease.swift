import Posix

/// Gives the executable's code pages back when the daemon falls quiet, paced by
/// `CodePages.Pacing`, with the timer that pacing asks for.
final class CodePageRelease {
    /// With nothing periodic to do, two releases a second at most: on the busiest bus that
    /// bounds the cost of faulting code back in to about 0.3 ms of CPU a second, and what
    /// a burst touched is handed back half a second after it at the latest.
    static let idleIntervalMs: Int64 = 500
    /// While a sensor is read, one a minute: the ticks' own code comes back at the next
    /// tick (100–300 µs of faults, once a minute: well under 1 % of what the ticks cost),
    /// what a client's start and the calls touched does not.
    static let busyIntervalMs: Int64 = 60_000

    private var pacing = CodePages.Pacing(idleIntervalMs: CodePageRelease.idleIntervalMs,
                                          busyIntervalMs: CodePageRelease.busyIntervalMs)
    private var timer: Timer?
    private var failed = false
    private let logger: Logger

    init(loop: EventLoop, logger: Logger) {
        self.logger = logger
        // The timer only wakes the loop: the quiet moment that follows its wake-up releases.
        timer = try? Timer(loop: loop) {}
        if timer == nil { logger.warning("cannot create a timer: code pages are given back only at quiet moments") }
    }

    /// The loop has fallen quiet; `readingSensor`: it has ticks or sensor events coming.
    func quiet(readingSensor: Bool) {
        guard !failed else { return }
        switch pacing.quiet(nowMs: MonotonicClock.milliseconds(), busy: readingSensor) {
        case .release:
            if case .failure(let error) = CodePages.releaseExecutable() {
                logger.warning("cannot release code pages (\(error)); keeping them mapped")
                failed = true
            }
        case .wake(let afterMs):
            timer?.arm(afterMs: max(1, afterMs))
        case .wait:
            break
        }
    }
}
