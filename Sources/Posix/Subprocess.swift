import CLinux
import Glibc

/// Starting programs with posix_spawn the way a shell does, for the command-line tool and
/// the tests: no signal blocked and SIGTERM, SIGINT and SIGPIPE at their default
/// action, whatever the caller blocks (a daemon-style loop takes its signals through
/// signalfd; a test runner's worker threads block them) — a child that installs a plain
/// handler (GLib's g_unix_signal_add, sway) must see them.
public enum Subprocess {
    /// Starts `path` with `arguments`; `input`, `output` and `error` become its standard
    /// streams (nil: the caller's), `directory` its working directory (nil: the caller's).
    public static func start(_ path: String, _ arguments: [String], input: Int32? = nil, output: Int32? = nil,
                             error: Int32? = nil, directory: String? = nil) throws(Errno) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(input, Int32(0)), (output, 1), (error, 2)] {
            if let fd, case let rc = posix_spawn_file_actions_adddup2(&actions, fd, target), rc != 0 { throw Errno(rawValue: rc) }
        }
        if let directory, case let rc = posix_spawn_file_actions_addchdir_np(&actions, directory), rc != 0 { throw Errno(rawValue: rc) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw Errno(rawValue: rc) }
        return pid
    }

    /// Waits for a child: its exit status, or 128 + the signal that ended it.
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return decode(status)
    }

    /// The child's status if it has ended (reaping it), nil while it runs.
    public static func poll(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return decode(status)
    }

    private static func decode(_ status: Int32) -> Int32 {
        // WIFEXITED: the low 7 bits are 0; the status is the next byte. A signal: 128+N.
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
