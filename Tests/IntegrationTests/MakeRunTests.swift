import Foundation
import Testing
import TestSupport

/// `make run` as a newcomer uses it: in a terminal, stopped with Ctrl-C. The terminal
/// is a real pseudo-terminal (Python's pty module), and Ctrl-C the byte the terminal
/// turns into SIGINT for its foreground process group, as when a key is pressed.
@Suite struct MakeRunTests {
    /// Runs ARGV on a pseudo-terminal, waits until MARKER appears in its output, types
    /// Ctrl-C, and prints the output and then `EXIT=<status>` (negative: killed by that
    /// signal).
    static let terminal = """
        import os, pty, select, sys, time
        marker = sys.argv[1].encode()
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp(sys.argv[2], sys.argv[2:])
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
        if typed:
            os.write(fd, b'\\x03')
        read_until(None, 30)
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(out.decode(errors='replace'))
        print('\\nTYPED=%d EXIT=%d' % (typed, os.waitstatus_to_exitcode(status)))
        """

    /// Ctrl-C is how the demo is stopped: make exits 0 with no "Error 130", after the
    /// demo stopped the monitor, the daemon and the bus. (`SWIFT=true`: the test's
    /// build is used, not rebuilt.)
    @Test func ctrlCStopsMakeRunCleanly() throws {
        // Short: the demo's bus socket is made below it (sun_path holds 107 bytes).
        let work = try makeTemporaryDirectory(prefix: "run")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try ExternalCommand.run(
            "/usr/bin/python3", ["-c", Self.terminal, "state: device",
                                 "/usr/bin/make", "--no-print-directory", "-C", repositoryRoot, "run", "SWIFT=true"],
            directory: work,
            environment: ["ORIENTATIOND_BIN_DIR": productsDirectory, "TMPDIR": work, "MAKEFLAGS": "", "MFLAGS": ""],
            seconds: 150)
        #expect(result.stdout.contains("\nTYPED=1 EXIT=0\n"), "\(result.output)")
        #expect(result.stdout.contains("demo: stopped orientationd and the private bus"), "\(result.output)")
        #expect(!result.stdout.contains("make: ***"), "\(result.output)")
        // The monitor's lines are as its --help says they are.
        #expect(result.stdout.contains("state: device normal, tilt vertical, interface normal, content rotation 0"), "\(result.output)")
        let help = try ChildProcess.run(product: "orientationctl", arguments: ["monitor", "--help"], directory: work)
        #expect(help.stdout.contains("state: device D, tilt T, interface I, content rotation R"), "\(help.stdout)")
        #expect(help.stdout.contains("changed: device D, tilt T, interface I, content rotation R"), "\(help.stdout)")
        // The demo's temporary directory is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).filter { $0.hasPrefix("orientationd-demo") }.isEmpty)
    }
}
