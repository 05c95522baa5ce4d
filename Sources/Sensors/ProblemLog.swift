import Posix

/// Logs a recurring problem once until things are fine again, so that a broken sensor read
/// ten times a second does not flood the journal.
///
/// A run of problems starts at the first reading dropped and ends at the next good one.
/// Within it each kind of problem is logged once, in full (the first bad values, say);
/// readings whose values differ but whose problem is the same are only counted (keyed by
/// the message, a sensor returning ever-different absurd values logged every one). The
/// good reading that ends a run says how many were dropped: nothing is lost, and a
/// problem that comes and goes is said each time it comes.
public struct ProblemLog: Sendable {
    /// The kinds already logged in this run (rarely more than one).
    private var logged: [String] = []
    /// Readings dropped in this run.
    public private(set) var dropped = 0

    public init() {}

    /// A reading dropped for a problem of `kind` (a fixed phrase: "out of range", "not a
    /// number"), described by `message`, which is logged if this kind was not yet in this run.
    public mutating func report(_ kind: String, _ message: String, logger: Logger) {
        dropped += 1
        guard !logged.contains(kind) else { return }
        logged.append(kind)
        logger.warning(message)
    }

    /// A good reading from `subject`: the run, if any, is over.
    public mutating func clear(_ subject: String, logger: Logger) {
        guard dropped > 0 else { return }
        logger.info("\(subject): readings usable again after \(dropped) dropped")
        dropped = 0
        logged.removeAll(keepingCapacity: true)
    }
}
