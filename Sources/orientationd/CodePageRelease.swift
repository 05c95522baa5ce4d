import Posix

/// Gives the executable's code pages back whenever the daemon falls quiet, paced by
/// `CodePages.Pacing` (at most twice a second), with the timer that pacing asks for.
final class CodePageRelease {
    /// Two releases a second at most: on the busiest bus that bounds the cost of faulting
    /// code back in to about 0.3 ms of CPU a second, and what a burst touched is handed
    /// back half a second after it at the latest.
    static let intervalMs: Int64 = 500

    private var pacing = CodePages.Pacing(intervalMs: CodePageRelease.intervalMs)
    private var timer: Timer?
    private var failed = false
    private let logger: Logger

    init(loop: EventLoop, logger: Logger) {
        self.logger = logger
        // The timer only wakes the loop: the quiet moment that follows its wake-up releases.
        timer = try? Timer(loop: loop) {}
        if timer == nil { logger.warning("cannot create a timer: code pages are given back only at quiet moments") }
    }

    /// The loop has fallen quiet with nothing periodic to do.
    func quiet() {
        guard !failed else { return }
        switch pacing.quiet(nowMs: MonotonicClock.milliseconds()) {
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
