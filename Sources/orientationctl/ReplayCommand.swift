// `orientationctl replay`: run the daemon's orientation engine over a recorded trace.
//
// No Foundation here: files are read and written through Posix's FileDescriptor,
// output through a buffer.
import Arguments
import Glibc
import OrientationEngine
import Posix
import Sensors

enum ReplayCommand {
    /// What a usage error is followed by.
    static var usage: String {
        let lines = command.usage() + [command.name + " --help"]
        return lines.enumerated().map { ($0.offset == 0 ? "usage: " : "       ") + $0.element }.joined(separator: "\n") + "\n"
    }

    static var helpText: String {
        var s = """
            NAME
                orientationctl replay - run the orientation engine over a sensor trace

            SYNOPSIS

            """
        for line in command.usage(width: 76) + [command.name + " --help"] { s += "    " + line + "\n" }
        s += """

            DESCRIPTION
                Feeds every sample of TRACE.csv, in order, to the same OrientationEngine
                the daemon uses (started fresh, as when the first client connects) and
                prints one line each time the orientation or the tilt changes. With '-'
                the trace is read from standard input.

                Use it to compare and tune engines, and attach a trace and its replay
                (with --explain) to bug reports. The output is the engine contract
                of the labelled orientation traces that 'make score' uses
                (docs/development.md), so their scorer can run it directly:

                    score.py --traces DIR -- orientationctl replay

            INPUT
                One sample per line: t_ms,x,y,z
                  t_ms   integer milliseconds, strictly increasing
                  x,y,z  proper acceleration in m/s^2 in the Linux IIO frame, after
                         scale and mount matrix (upright at rest reads 0,-9.81,0)
                Numbers use '.' as the decimal point whatever the locale. Blank lines
                and lines starting with '#' are ignored. A malformed line, a non-finite
                value or a timestamp that does not increase is skipped: the first of
                each kind is reported on standard error with its line number, the
                others are counted, and the count is reported at the end.
                A trace is a recording: a gap between its samples is a dropout that
                tells nothing, and a pending change waits for the next sample (as the
                daemon does with a polled sensor; an event-driven sensor's silence,
                by contrast, means its last reading stands).

            GYROSCOPE
                When gyro/NAME.csv exists beside TRACE.csv (NAME being the
                trace's file name), it is the gyroscope recorded with the trace:
                t_ms,x,y,z lines in rad/s in the same frame and on the same clock,
                the raw rate with its bias (as in_anglvel_* reads). Its readings
                are fed to the engine in time order with the accelerometer's, as
                the daemon fuses a gyroscope beside the accelerometer. Malformed
                lines and times that do not increase are reported and skipped.
                --no-gyro ignores the file.

            OUTPUT
                One line per change of state, on standard output:
                    t_ms,orientation,tilt
                where t_ms is the timestamp of the sample that decided the change,
                orientation is normal, left-up, bottom-up, right-up or undefined, and
                tilt is vertical, tilted-up, tilted-down, face-up, face-down or
                undefined. The first sample of the trace is decided at once.

            OPTIONS

            """
        s += command.manPageOptions()
        s += """

            ENGINE TUNABLES ([Engine] section)

            """
        for key in EngineTunables.keys {
            guard let doc = EngineTunables.documentation(forKey: key) else { continue }
            // "Key (unit, range, default): summary" -> key line, then the wrapped summary.
            if let split = doc.firstRange(of: "): ") {
                s += "    " + doc[..<split.lowerBound] + ")\n"
                s += wrap(String(doc[split.upperBound...]), indent: 8, width: 80)
            } else {
                s += wrap(doc, indent: 4, width: 80)
            }
        }
        s += """

            EXIT STATUS
                0  the trace was replayed (malformed lines, if any, were skipped)
                1  the trace or the configuration file could not be read, or the
                   configuration is invalid
                2  usage error

            EXAMPLES
                orientationctl replay trace.csv
                orientationctl replay --explain --config /etc/orientationd/orientationd.conf trace.csv
                grep -v '^#' trace.csv | orientationctl replay -

            """
        return s
    }

    /// The options, declared once: the parser, the SYNOPSIS and OPTIONS sections of the
    /// help, and the man page's SYNOPSIS.
    static let command = Command(
        name: "orientationctl replay",
        summary: "Run the orientation engine over a trace (no daemon needed).",
        description: "", groups: [OptionGroup("OPTIONS", [config, noGyro, help]), OptionGroup("", [explainAll, explain], form: .lastWins)],
        positionals: ["TRACE.csv | -"])

    static let config = Option("--config", value: "PATH", help: """
            Read engine tunables from PATH, the daemon's configuration file
            (orientationd(8)), read by the daemon's own parser: in section
            [Engine], each 'Key = value' line sets one tunable; the other
            sections are checked but do not matter here. A file the daemon
            would reject (unknown section or key, bad value, malformed line)
            is an error naming the line.
            """)
    static let noGyro = Option("--no-gyro", help: """
            Ignore gyro/NAME.csv beside the trace: the accelerometer alone
            decides (see GYROSCOPE).
            """)
    static let explainAll = Option("--explain-all", help: "As --explain, and after every other sample too.")
    static let explain = Option("--explain", help: """
            After each output line, print a line starting with '# ' on
            standard output that explains the decision: the gravity
            estimate, the sensor's 1 g, the roll angle phi and the elevation
            of the screen normal, the disturbance (1 is calm), how long the
            readings have been unchanged (a rest), the judge's state and
            proposal, the stride averages, with a gyroscope its learned bias
            and the attitude it turns, which rule committed the change (at
            rest, calm, the stride estimate) and when a pending decision will
            be looked at again. Scorers ignore lines starting with '#'.
            """)
    static let help = Option("-h", "--help", help: "Print this help and exit.")

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: Parsed
        do { parsed = try command.parse(arguments) } catch { return usageError(error.message) }
        if parsed.has(help) {
            Output.standardOutput(Array(helpText.utf8))
            return 0
        }
        let configPath = parsed.value(config)
        let explainAll = parsed.has(Self.explainAll)
        let explain = explainAll || parsed.has(Self.explain)
        let tracePath = parsed.positionals.first
        guard let tracePath else { return usageError("missing TRACE.csv (or '-' for standard input)") }

        var tunables = EngineTunables.default
        if let configPath {
            // The daemon's own parser: a file the daemon would reject is rejected here too.
            switch Configuration.load(path: configPath, optional: false) {
            case .success(let configuration): tunables = configuration.tunables
            case .failure(let error):
                writeAll(2, "orientationctl replay: invalid configuration: \(error)\n")
                return 1
            }
        }

        let fd: FileDescriptor
        if tracePath == "-" {
            fd = .standardInput
        } else {
            do { fd = try FileDescriptor.open(tracePath) } catch {
                writeAll(2, "orientationctl replay: cannot open trace '\(tracePath)': \(error)\n")
                return 1
            }
        }

        // The gyroscope beside the trace, if any (and wanted).
        var gyro: [GyroscopeSample] = []
        if tracePath != "-" && !parsed.has(noGyro) {
            let path = ReplaySensor.gyroscopePath(beside: tracePath)
            if let gfd = try? FileDescriptor.open(path) {
                var reader = TraceReader()
                let status = forEachLine(fd: gfd) { line in
                    let text = Substring(String(decoding: line, as: UTF8.self))
                    if let s = reader.read(text, warn: { warnSkipped(path, $0) }) {
                        gyro.append(GyroscopeSample(timeMs: s.timeMs, x: s.x, y: s.y, z: s.z))
                    }
                }
                gfd.close()
                for tally in reader.takeTallies() { warn("\(path): \(tally)") }
                if let status { warn("cannot read \(path): \(status)") }
            }
        }
        var nextGyro = 0

        // A trace is a recording: a gap in it is a dropout, not a device lying still.
        var engine = OrientationEngine(tunables: tunables, delivery: .stream)
        var out = OutputBuffer()
        var reader = TraceReader()
        let name = tracePath == "-" ? "<stdin>" : tracePath
        var scaleWarned = false
        func report(at timeMs: Int64) {
            out.append("\(timeMs),\(engine.orientation.rawValue),\(engine.tilt.rawValue)\n")
            if explain { out.append("# \(engine.explanation)\n") }
        }
        let status = forEachLine(fd: fd) { line in
            let text = Substring(String(decoding: line, as: UTF8.self))
            if let sample = reader.read(text, warn: { warnSkipped(name, $0) }) {
                // As the daemon's timer does: a pending decision completes at its deadline
                // with the last sample held, when the next sample comes later than that.
                while let deadline = engine.nextDeadlineMs, deadline < sample.timeMs {
                    if engine.advance(toMs: deadline) { report(at: deadline) }
                }
                while nextGyro < gyro.count && gyro[nextGyro].timeMs <= sample.timeMs {
                    engine.feedGyroscope(gyro[nextGyro])
                    nextGyro += 1
                }
                if engine.feed(sample) {
                    report(at: sample.timeMs)
                } else if explainAll {
                    out.append("# \(engine.explanation)\n")
                }
                if !scaleWarned, let warning = engine.scaleWarning {
                    scaleWarned = true
                    warn("\(name):\(reader.lineNumber): \(warning)")
                }
                if let warning = engine.gyroscopeWarning { warn("\(name):\(reader.lineNumber): \(warning)") }
            }
        }
        out.flush()
        for tally in reader.takeTallies() { warn("\(name): \(tally)") }
        if let err = status {
            writeAll(2, "orientationctl replay: cannot read trace '\(name)': \(err)\n")
            return 1
        }
        return 0
    }

    /// Word-wrap `text` at `width` columns with `indent` spaces before every line.
    static func wrap(_ text: String, indent: Int, width: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = ""
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                out += pad + line + "\n"
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { out += pad + line + "\n" }
        return out
    }

    // MARK: - I/O helpers

    static func usageError(_ message: String) -> Int32 {
        writeAll(2, "orientationctl replay: \(message)\n" + usage)
        return 2
    }

    static func warn(_ message: String) {
        writeAll(2, "orientationctl replay: warning: \(message)\n")
    }

    /// The first skipped line of its kind in `file`; those after it are counted (``TraceReader``).
    static func warnSkipped(_ file: String, _ skipped: TraceReader.Skipped) {
        warn("\(file):\(skipped.line): skipped: \(skipped.detail) (more lines like it are counted, not listed)")
    }

    /// Writes all of `text` to `fd`; an error (EPIPE: the reader went) ends it quietly.
    static func writeAll(_ fd: Int32, _ text: String) {
        try? FileDescriptor(borrowing: fd).writeAll(text)
    }

    /// Calls `body` with each line (without its '\n') read from `fd`, streaming in
    /// chunks; the error if reading failed.
    static func forEachLine(fd: FileDescriptor, _ body: (ArraySlice<UInt8>) -> Void) -> Errno? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { raw throws(Errno) in try fd.read(into: raw) } } catch let error as Errno {
                return error
            } catch {
                return Errno.invalidArgument
            }
            if n == 0 { break }
            var start = 0
            for k in 0..<n where chunk[k] == UInt8(ascii: "\n") {
                if pending.isEmpty {
                    body(chunk[start..<k])
                } else {
                    pending.append(contentsOf: chunk[start..<k])
                    body(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                start = k + 1
            }
            pending.append(contentsOf: chunk[start..<n])
        }
        if !pending.isEmpty { body(pending[...]) }
        return nil
    }

    /// Buffered standard output.
    struct OutputBuffer {
        var bytes: [UInt8] = []

        mutating func append(_ s: String) {
            bytes.append(contentsOf: s.utf8)
            if bytes.count >= 1 << 16 { flush() }
        }

        mutating func flush() {
            Output.standardOutput(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }
}
