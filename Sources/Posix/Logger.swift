import Glibc

/// Writes diagnostics to standard error, one line each, prefixed with the program name
/// and the level.
///
/// Under systemd, standard error is a stream to the journal, which takes a line's
/// priority from a `<N>` prefix (sd-daemon(3)): there a line is `<3>error: …`,
/// `<4>warning: …`, `<6>…` or `<7>debug: …`, without the program name (the journal
/// records who wrote it), so that `journalctl -p warning -u orientationd` finds the
/// warnings, which would otherwise all be logged at the stream's default, info.
///
/// A value passed to whoever logs, not a global: tests and tools choose their own.
public struct Logger: Sendable {
    public var program: String
    public var verbose: Bool
    /// Whether lines carry the journal's priority prefixes instead of the program name.
    public var toJournal: Bool

    /// `toJournal` defaults to whether standard error is the journal's stream
    /// (``standardErrorIsJournal()``).
    public init(program: String, verbose: Bool = false, toJournal: Bool = Logger.standardErrorIsJournal()) {
        self.program = program
        self.verbose = verbose
        self.toJournal = toJournal
    }

    public func error(_ message: String) { emit(3, "error", message) }
    public func warning(_ message: String) { emit(4, "warning", message) }
    public func info(_ message: String) { emit(6, nil, message) }
    /// Only with `--verbose`. The message is built only then: a quiet daemon's event
    /// paths (a client's call, a sensor opened) never format what nobody reads.
    public func debug(_ message: @autoclosure () -> String) { if verbose { emit(7, "debug", message()) } }

    /// Whether file descriptor 2 is the stream systemd connected to the journal: the
    /// device and inode it names in `JOURNAL_STREAM` ("DEV:INODE", systemd.exec(5)).
    /// The variable alone is not enough: it is inherited by children whose standard
    /// error goes elsewhere (a terminal, a pipe), and a prefix there would be noise.
    public static func standardErrorIsJournal() -> Bool {
        guard let raw = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: raw).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
              case .success(let info) = system_fstat(2) else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// What one message writes: its line (or lines), each ending in a newline.
    func text(_ priority: Int, _ level: String?, _ message: String) -> String {
        let label = level.map { $0 + ": " } ?? ""
        guard toJournal else { return program + ": " + label + message + "\n" }
        // The journal reads the prefix of each line: a message that spans lines (text
        // from a peer or a file) keeps its priority on every one.
        let prefix = "<\(priority)>" + label
        var text = ""
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            text += prefix + line + "\n"
        }
        return text
    }

    private func emit(_ priority: Int, _ level: String?, _ message: String) {
        var bytes = Array(text(priority, level, message).utf8)
        // One write per message so that concurrent writers never interleave within it.
        bytes.withUnsafeMutableBytes { raw in _ = system_write(2, UnsafeRawBufferPointer(raw)) }
    }
}
