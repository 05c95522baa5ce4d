import Foundation
import Testing
import TestSupport

/// The Swift toolchain leaves empty `TemporaryDirectory.*` folders and SwiftPM's lock
/// files in TMPDIR at every build, even one with nothing to do (ten entries a build).
/// The builds make runs for a user (`make build`, `make release`, `make run` …) give it
/// `.build/tmp` instead, so that the user's /tmp does not fill up with them.
@Suite struct MakeBuildTests {
    /// `make TARGET` with a stand-in for swift that reports the TMPDIR it was given, run
    /// with TMPDIR set to a directory of the test's own.
    static func make(_ target: String) throws -> (result: ExternalCommand.Result, tmpdir: String) {
        let work = try makeTemporaryDirectory(prefix: "mkb")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let swift = work + "/swift"
        try "#!/bin/sh\necho \"stand-in swift $1: TMPDIR=$TMPDIR\"\n".write(toFile: swift, atomically: true, encoding: .utf8)
        chmod(swift, 0o755)
        let result = try ExternalCommand.run(
            "/usr/bin/make", ["--no-print-directory", "-C", repositoryRoot, target, "SWIFT=" + swift],
            directory: work, environment: ["TMPDIR": work, "MAKEFLAGS": "", "MFLAGS": ""], seconds: 120)
        return (result, work)
    }

    @Test(arguments: ["build", "release"])
    func theToolchainsLeftoversGoToTheBuildTree(target: String) throws {
        let (result, tmpdir) = try Self.make(target)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("stand-in swift build: TMPDIR=\(repositoryRoot)/.build/tmp\n"), "\(result.output)")
        #expect(!result.stdout.contains("TMPDIR=\(tmpdir)"), "\(result.output)")
    }
}
