import Glibc

/// Writes diagnostics to standard error, one line each, prefixed with the program name
/// and the level. Under systemd, standard error goes to the journal.
///
/// A value passed to whoever logs, not a global: tests and tools choose their own.
public struct Logger: Sendable {
    public var program: String
    public var verbose: Bool

    public init(program: String, verbose: Bool = false) {
        self.program = program
        self.verbose = verbose
    }

    public func error(_ message: String) { emit("error", message) }
    public func warning(_ message: String) { emit("warning", message) }
    public func info(_ message: String) { emit(nil, message) }
    /// Only with `--verbose`. The message is built only then: a quiet daemon's event
    /// paths (a client's call, a sensor opened) never format what nobody reads.
    public func debug(_ message: @autoclosure () -> String) { if verbose { emit("debug", message()) } }

    private func emit(_ level: String?, _ message: String) {
        let line = program + ": " + (level.map { $0 + ": " } ?? "") + message + "\n"
        var bytes = Array(line.utf8)
        // One write per line so that concurrent writers never interleave within a line.
        bytes.withUnsafeMutableBytes { raw in _ = system_write(2, UnsafeRawBufferPointer(raw)) }
    }
}
