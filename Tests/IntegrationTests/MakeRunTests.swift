import Foundation
import Testing
import TestSupport

/// `make run` as a newcomer uses it: in a terminal, stopped with Ctrl-C. The terminal
/// is a real pseudo-terminal (Python's pty module), and Ctrl-C the byte the terminal
/// turns into SIGINT for its foreground process group, as when a key is pressed.
@Suite struct MakeRunTests {
    /// Runs ARGV in a session of its own, waits until MARKER appears in its output, then
    /// either types Ctrl-C (ACTION `ctrl-c`: ARGV runs on a pseudo-terminal, which turns
    /// the byte into SIGINT for its foreground process group) or, with no terminal
    /// (ARGV's output is a pipe, as in CI, and no terminal hangs up when it dies), sends
    /// SIGTERM to ARGV's process alone (`term`: as kill(1), timeout(1) or a CI step's
    /// limit do), SIGKILL to it alone (`kill`: a tool's timeout, Python's
    /// `Popen.kill`), or SIGINT to its process group (`int-group`: an IDE's stop
    /// button, `kill -INT -PGID`). It reads
    /// until every process has closed the output (at most 30 s), kills what still runs
    /// in the session, and prints the output and then `EXIT=<status>` (negative: killed
    /// by that signal).
    static let terminal = """
        import os, pty, select, signal, subprocess, sys, time
        # As in a user's shell, no signal is blocked (the test runner's threads block
        # them, and Foundation's Process hands its mask on).
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        marker = sys.argv[1].encode()
        action = sys.argv[2]
        if action == 'ctrl-c':
            pid, fd = pty.fork()
            if pid == 0:
                os.execvp(sys.argv[3], sys.argv[3:])
        else:
            child = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
            pid, fd = child.pid, child.stdout.fileno()
        out = b''
        def read_until(marker, seconds):
            global out
            deadline = time.monotonic() + seconds
            while marker is None or marker not in out:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return False
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return False
                if not chunk:
                    return False
                out += chunk
            return True
        typed = read_until(marker, 90)
        if typed and action == 'ctrl-c':
            os.write(fd, b'\\x03')
        elif typed and action == 'kill':
            os.kill(pid, signal.SIGKILL)
        elif typed and action == 'int-group':
            os.killpg(pid, signal.SIGINT)
        elif typed:
            os.kill(pid, signal.SIGTERM)
        read_until(None, 30)
        _, status = os.waitpid(pid, 0)
        # Whatever still runs in the session (a failed test's demo) is killed, so that a
        # failure leaves nothing behind.
        for p in filter(str.isdigit, os.listdir('/proc')):
            try:
                stat = open('/proc/%s/stat' % p).read()
                state, _, _, session = stat[stat.rindex(')') + 2:].split()[:4]
                if int(session) == pid and state != 'Z':
                    os.kill(int(p), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        sys.stdout.write(out.decode(errors='replace'))
        print('\\nTYPED=%d EXIT=%d' % (typed, os.waitstatus_to_exitcode(status)))
        """

    /// `make run` driven by ``terminal`` with ACTION once the monitor shows the state, in
    /// a directory of its own (short: the demo's bus socket is made below it, and
    /// sun_path holds 107 bytes; `SWIFT=true`: the test's build is used, not rebuilt).
    /// Returns the driver's output and whether the demo's temporary directory is gone.
    static func makeRun(_ action: String) throws -> (result: ExternalCommand.Result, demoDirectoryGone: Bool) {
        let work = try makeTemporaryDirectory(prefix: "run")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try ExternalCommand.run(
            "/usr/bin/python3", ["-c", terminal, "state: device", action,
                                 "/usr/bin/make", "--no-print-directory", "-C", repositoryRoot, "run", "SWIFT=true"],
            directory: work,
            environment: ["ORIENTATIOND_BIN_DIR": productsDirectory, "TMPDIR": work, "MAKEFLAGS": "", "MFLAGS": ""],
            seconds: 150)
        let gone = try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("orientationd-demo") }.isEmpty
        return (result, gone)
    }

    /// Ctrl-C is how the demo is stopped: make exits 0 with no "Error 130", after the
    /// demo stopped the monitor, the daemon and the bus.
    @Test func ctrlCStopsMakeRunCleanly() throws {
        let (result, demoDirectoryGone) = try Self.makeRun("ctrl-c")
        #expect(result.stdout.contains("\nTYPED=1 EXIT=0\n"), "\(result.output)")
        #expect(result.stdout.contains("demo: stopped orientationd and the private bus"), "\(result.output)")
        #expect(!result.stdout.contains("make: ***"), "\(result.output)")
        // The monitor's lines are as its --help says they are.
        #expect(result.stdout.contains("state: device normal, tilt vertical, interface normal, content rotation 0"), "\(result.output)")
        let work = try makeTemporaryDirectory(prefix: "help")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let help = try ChildProcess.run(product: "orientationctl", arguments: ["monitor", "--help"], directory: work)
        #expect(help.stdout.contains("state: device D, tilt T, interface I, content rotation R"), "\(help.stdout)")
        #expect(help.stdout.contains("changed: device D, tilt T, interface I, content rotation R"), "\(help.stdout)")
        #expect(demoDirectoryGone)
    }

    /// Without a terminal, however make is ended, the demo stops the monitor, the daemon
    /// and the bus and removes its directory, rather than run on without make; make
    /// itself dies of the signal, and the output closes only once the demo is gone.
    /// - `term`, SIGTERM to make alone (kill(1), timeout(1), a CI step's time limit):
    ///   make passes it to its child, the shell that runs the demo as a job, whose death
    ///   reaches the demo in its process group of its own;
    /// - `kill`, SIGKILL to make alone (a tool's timeout, Python's `Popen.kill`): nothing
    ///   is passed on, and that shell dies with make (before, it and the demo ran on,
    ///   holding the demo's directory, until killed by hand);
    /// - `int-group`, SIGINT to make's process group (an IDE's stop button): not the
    ///   demo's group, which is its own for a terminal's Ctrl-C, but it stops all the same.
    @Test(arguments: zip(["term", "kill", "int-group"], [-15, -9, -2]))
    func endingMakeStopsTheDemo(action: String, exitStatus: Int) throws {
        let (result, demoDirectoryGone) = try Self.makeRun(action)
        #expect(result.stdout.contains("\nTYPED=1 EXIT=\(exitStatus)\n"), "\(result.output)")
        #expect(result.stdout.contains("demo: stopped orientationd and the private bus"), "\(result.output)")
        #expect(demoDirectoryGone)
    }

    /// The scripts' stop (`on_exit` in scripts/private-bus.sh, which `make run`, `make
    /// bench` and `make screenshots` use) runs to its end whatever signal follows the one
    /// that began it: a second Ctrl-C, or the terminal's hangup after a SIGTERM, had cut
    /// it short and left the bus and the daemon running. Here the stop waits for a line
    /// on standard input while SIGTERM, SIGINT and SIGHUP arrive, then finishes, and the
    /// script's status is the first signal's.
    @Test func aSecondSignalDoesNotCutTheStopShort() throws {
        let script = """
            set -euo pipefail
            source "$1/scripts/private-bus.sh"
            stop() { echo "stopping $1"; read -r _; echo "stopped"; exit "$1"; }
            on_exit stop
            echo ready
            read -r _
            """
        let driver = """
            import signal, subprocess, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            p = subprocess.Popen(['bash', '-c', sys.argv[1], 'stop-test', sys.argv[2]], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            print(p.stdout.readline().strip())
            p.send_signal(signal.SIGTERM)
            print(p.stdout.readline().strip())
            for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                p.send_signal(s)
            p.stdin.write('go\\n')
            p.stdin.close()
            print(p.stdout.read().strip())
            print('EXIT=%d' % p.wait())
            """
        let work = try makeTemporaryDirectory(prefix: "stop")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try ExternalCommand.run("/usr/bin/python3", ["-c", driver, script, repositoryRoot],
                                             directory: work, seconds: 30)
        #expect(result.stdout == "ready\nstopping 143\nstopped\nEXIT=143\n", "\(result.output)")
    }
}
