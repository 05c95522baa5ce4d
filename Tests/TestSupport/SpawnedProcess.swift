import Foundation
import Glibc
import Posix

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
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let error = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { for fd in [input, output, error] where fd >= 0 { close(fd) } }
        guard input >= 0, output >= 0, error >= 0 else { throw TestFailure("cannot open the output files of \(path)") }
        do {
            pid = try Subprocess.start(path, arguments, input: input, output: output, error: error, directory: directory)
        } catch {
            throw TestFailure("cannot start \(path): \(error)")
        }
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
        guard let status = Subprocess.poll(pid) else { return true }
        exitStatus = status
        return false
    }

    public func signal(_ number: Int32) { kill(pid, number) }
}
