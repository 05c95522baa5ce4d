import Foundation
import Testing
import TestSupport

/// scripts/no-leftovers.sh, which make test runs around the build, the tests and the
/// fuzzers: it names what a command left behind and fails, and lets a clean command
/// pass with the command's own status.
@Suite struct LeftoversTests {
    func run(_ command: String, watching tmp: String) throws -> ExternalCommand.Result {
        try ExternalCommand.run("/bin/bash", [repositoryRoot + "/scripts/no-leftovers.sh", "bash", "-c", command],
                                directory: tmp, environment: ["LEFTOVERS_TMP": tmp, "LEAK": repositoryRoot + "/Tests/leftover-\(getpid())"])
    }

    @Test func namesWhatACommandLeftAndFails() throws {
        let tmp = try makeTemporaryDirectory(prefix: "leftovers")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let leaky = try run("mkdir \"$TMPDIR/orientationd-cli.abc\"; touch \"$TMPDIR/../new-in-tmp\"; touch \"$LEAK\"", watching: tmp)
        try? FileManager.default.removeItem(atPath: repositoryRoot + "/Tests/leftover-\(getpid())")
        #expect(leaky.status == 1, "\(leaky.output)")
        #expect(leaky.stderr.contains("left in its temporary directory (TMPDIR):\n  orientationd-cli.abc\n"), "\(leaky.stderr)")
        #expect(leaky.stderr.contains("new in \(tmp):\n  new-in-tmp\n"), "\(leaky.stderr)")
        #expect(leaky.stderr.contains("new files that git neither tracks nor ignores:\n  Tests/leftover-\(getpid())\n"), "\(leaky.stderr)")

        // What the Swift toolchain leaves in every build is not counted; the command's
        // failure is passed on as it is.
        let toolchain = try run("mkdir \"$TMPDIR/TemporaryDirectory.x\" \"$TMPDIR/swift-generated-sources\"; touch \"$TMPDIR/_build.lock\"",
                                watching: tmp)
        #expect(toolchain.status == 0 && toolchain.stdout.contains("nothing left behind"), "\(toolchain.output)")
        let failing = try run("exit 3", watching: tmp)
        #expect(failing.status == 3, "\(failing.output)")
        let clean = try run("true", watching: tmp)
        #expect(clean.status == 0 && clean.stdout.contains("nothing left behind"), "\(clean.output)")
    }
}
