import Glibc
import Posix

/// Line output that is written at once (monitor output is read live through pipes).
enum Output {
    static func line(_ text: String) { standardOutput(Array((text + "\n").utf8)) }
    /// An error line. Where standard error is the journal's stream (follow started by a
    /// compositor or a unit under systemd), the line carries the error priority instead
    /// of the program's name (``Logger``).
    static func error(_ text: String) {
        let prefix = Logger.standardErrorIsJournal() ? "<3>" : "orientationctl: "
        try? FileDescriptor.standardError.writeAll(prefix + text + "\n")
    }

    /// One write(2) where it fits: unbuffered, so a reader sees each line as it happens.
    /// Output that cannot be written (a full disk, /dev/full) ends the program with one
    /// line and status 1, as coreutils do: output lost without a word would pass for
    /// complete. (A closed pipe ends it by SIGPIPE first, as it ends `yes | head`.)
    static func standardOutput(_ bytes: [UInt8]) {
        do { try FileDescriptor.standardOutput.writeAll(bytes) } catch {
            Output.error("cannot write standard output: \(error)")
            exit(1)
        }
    }

    /// Local wall-clock time as HH:MM:SS.mmm, for people reading a monitor.
    static func clock() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = Int(now.tv_nsec / 1_000_000)
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(msText)"
    }

    /// Seconds since the epoch with millisecond precision, for JSON consumers.
    static func epochSeconds() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ms = Int(now.tv_nsec / 1_000_000)
        return "\(now.tv_sec)." + (ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)")
    }

    /// A JSON object from ordered key/value pairs; values are already JSON.
    static func json(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { "\(quote($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
