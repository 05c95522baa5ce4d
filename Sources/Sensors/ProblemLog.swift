import Posix

/// Logs a recurring problem once until things are fine again, so a broken sensor read
/// ten times a second does not flood the journal.
struct ProblemLog {
    private var last: String?
    var count = 0

    mutating func report(_ message: String, logger: Logger) {
        count += 1
        if message != last { logger.warning(message) }
        last = message
    }

    mutating func clear() { last = nil }
}
