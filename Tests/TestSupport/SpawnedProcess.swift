import Foundation
import Glibc

/// A program started the way a shell starts it: no signal blocked and SIGTERM/SIGINT at
/// their default action, standard output and error to files. Foundation's Process passes
/// on the spawning thread's signal mask, and the test runner's worker threads block
/// signals, so a program that handles SIGTERM with a plain handler (GLib's
/// g_unix_signal_add, Qt's usual socket-pair trick) would never see it.
public final class SpawnedProcess {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    public private(set) var exitStatus: Int32?

    public init(_ path: String, _ arguments: [String], directory: String) throws {
        let name = directory + "/" + (path as NSString).lastPathComponent + "-" + UUID().uuidString.prefix(8)
        stdoutPath = name + ".stdout"
        stderrPath = name + ".stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
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
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(directory)
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        _ = FileManager.default.changeCurrentDirectoryPath(previous)
        guard rc == 0 else { throw TestFailure("cannot start \(path): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Reaps the process if it has exited.
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        guard rc == pid else { return true }
        // WIFEXITED: the low 7 bits are 0; the status is the next byte. A signal: 128+N.
        exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return false
    }

    public func signal(_ number: Int32) { kill(pid, number) }
}
