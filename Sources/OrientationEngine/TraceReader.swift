/// Reads a trace's lines in order, as every reader of one must (`orientationctl replay`,
/// the daemon's replay sensor, and each for the gyroscope recorded beside a trace): the
/// samples whose time increases; blank lines and comments passed over; a malformed line,
/// or one whose time does not come after the last sample's, skipped.
///
/// The first skipped line of each kind is worth a warning with its line number; later ones
/// only a count (``takeTallies()``): a recording whose clock jumped back for ten seconds holds
/// two thousand lines that do not increase, and a warning for each buries what matters.
public struct TraceReader: Sendable {
    /// Why a line was skipped.
    public enum Problem: Int, Sendable, CaseIterable, CustomStringConvertible {
        case malformed, notFinite, notIncreasing, tooLong

        public var description: String {
            switch self {
            case .malformed: "not t_ms,x,y,z"
            case .notFinite: "a value not finite"
            case .notIncreasing: "t_ms does not increase"
            case .tooLong: "too long"
            }
        }
    }

    /// A skipped line: its number (from 1), why, and what was wrong with it.
    public struct Skipped: Sendable, Equatable {
        public var line: Int
        public var problem: Problem
        public var detail: String
    }

    /// Lines skipped after the first of their kind, not warned about one by one.
    public struct Tally: Sendable, Equatable {
        public var problem: Problem
        public var count: Int
        /// The number of the last of them.
        public var lastLine: Int
    }

    /// The number of the line read last.
    public private(set) var lineNumber = 0
    /// The time of the last sample returned.
    public private(set) var lastTimeMs: Int64?
    /// Per kind: the lines skipped since the warning and not yet in a tally.
    private var counts = [Int](repeating: 0, count: Problem.allCases.count)
    /// Per kind: the number of the last line skipped (0: none yet, so the next is warned about).
    private var lastSkipped = [Int](repeating: 0, count: Problem.allCases.count)

    public init() {}

    /// The sample on the next line, or nil: nothing on it (blank, a comment), or skipped.
    /// `warn` is handed the first skipped line of each kind.
    public mutating func read(_ line: Substring, warn: (Skipped) -> Void) -> Sample? {
        lineNumber += 1
        switch TraceLine.parse(line) {
        case .success(nil):
            return nil
        case .failure(let error):
            skip(error.kind == .notFinite ? .notFinite : .malformed, error.message, warn: warn)
            return nil
        case .success(let sample?):
            if let last = lastTimeMs, sample.timeMs <= last {
                skip(.notIncreasing, "t_ms \(sample.timeMs) does not come after \(last)", warn: warn)
                return nil
            }
            lastTimeMs = sample.timeMs
            return sample
        }
    }

    /// Counts the next line as skipped by the caller (one too long to read whole).
    public mutating func skipLine(_ problem: Problem, _ detail: String, warn: (Skipped) -> Void) {
        lineNumber += 1
        skip(problem, detail, warn: warn)
    }

    private mutating func skip(_ problem: Problem, _ detail: String, warn: (Skipped) -> Void) {
        let k = problem.rawValue
        if lastSkipped[k] == 0 {
            warn(Skipped(line: lineNumber, problem: problem, detail: detail))
        } else {
            counts[k] += 1
        }
        lastSkipped[k] = lineNumber
    }

    /// The lines skipped without a warning since the last call, per kind (for the end of a
    /// file or of a stream: "N more lines skipped"); the counts start again from zero.
    public mutating func takeTallies() -> [Tally] {
        var tallies: [Tally] = []
        for problem in Problem.allCases where counts[problem.rawValue] > 0 {
            tallies.append(Tally(problem: problem, count: counts[problem.rawValue], lastLine: lastSkipped[problem.rawValue]))
            counts[problem.rawValue] = 0
        }
        return tallies
    }
}

extension TraceReader.Tally: CustomStringConvertible {
    /// "993 more lines skipped (t_ms does not increase), the last at line 1988".
    public var description: String {
        "\(count) more line\(count == 1 ? "" : "s") skipped (\(problem)), the last at line \(lastLine)"
    }
}
