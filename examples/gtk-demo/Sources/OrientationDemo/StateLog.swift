import Glibc

/// One line on standard error (one write(2): unbuffered, whole).
func printError(_ line: String) {
    var text = line.hasSuffix("\n") ? line : line + "\n"
    text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
}

/// `--state-log FILE`: one line per change of what the app shows, for tests and for
/// anyone who wants to see the order of events:
///
///     T_MS event=EVENT page=PAGE device=D interface=I content=C supported=A,B[ KEY=VALUE…]
///
/// T_MS is monotonic milliseconds. Each line is one write(2), so a reader never sees half
/// a line.
final class StateLog {
    private let fd: Int32

    /// nil (with the reason on standard error) when the file cannot be opened.
    init?(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            printError("orientation-demo: cannot open the state log \(path): \(String(cString: strerror(errno)))\n")
            return nil
        }
    }

    deinit { close(fd) }

    func write(_ fields: [(String, String)]) {
        var line = String(nowMs())
        for (key, value) in fields { line += " \(key)=\(value)" }
        line += "\n"
        line.withUTF8 { bytes in _ = Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }
}
