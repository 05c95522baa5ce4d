import Foundation
import Glibc
import Testing
import TestSupport

/// Under systemd, the daemon's standard error is the journal's stream (JOURNAL_STREAM
/// names its device and inode), and a line's `<N>` prefix is its priority there: a
/// warning must reach the journal as a warning, not as the stream's default, info.
@Suite struct JournalTests {
    let directory: String

    init() throws { directory = try makeTemporaryDirectory(prefix: "orientationd-journal") }

    /// A daemon on a private bus, replaying a file with one malformed line (a warning),
    /// verbose (debug lines); stopped once it serves; its standard error.
    private func run(journalStream: Bool, environment: [String: String]? = nil) throws -> String {
        let bus = try TestBus()
        let trace = directory + "/trace.csv"
        try "0,0,-9.81,0\nnot a sample\n100,0,-9.81,0\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(product: "orientationd",
                                      arguments: ["--address", bus.address, "--sensor", "replay:" + trace, "--verbose"],
                                      directory: directory, environment: environment, journalStream: journalStream)
        guard waitUntil(seconds: 20, { daemon.stderr.contains("serving org.orientationd.Orientation1") }) else {
            throw TestFailure("the daemon did not start serving:\n\(daemon.stderr)")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        return daemon.stderr
    }

    @Test func linesCarryTheirPriorityOnTheJournalStream() throws {
        let lines = try run(journalStream: true).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("<4>warning: replay: line 2: ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>using a replay of ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<7>debug: serving org.orientationd.Orientation1") }, "\(lines)")
        // Every line has a priority, and none repeats the program's name (the journal
        // records who wrote it).
        for line in lines {
            #expect(line.range(of: "^<[0-7]>", options: .regularExpression) != nil, "\(line)")
            #expect(!line.contains("orientationd: "), "\(line)")
        }
    }

    /// JOURNAL_STREAM is inherited: where standard error is not the stream it names (a
    /// terminal, a pipe, a file), lines stay plain.
    @Test func anotherStreamGetsPlainLines() throws {
        let elsewhere = directory + "/elsewhere"
        _ = FileManager.default.createFile(atPath: elsewhere, contents: nil)
        var info = stat()
        #expect(stat(elsewhere, &info) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        let text = try run(journalStream: false, environment: environment)
        #expect(text.contains("orientationd: warning: replay: line 2: "), "\(text)")
        #expect(text.contains("orientationd: debug: serving"), "\(text)")
        #expect(!text.contains("<4>") && !text.contains("<7>"), "\(text)")
    }

    /// Errors too, and before the daemon has read its configuration: a usage error.
    @Test func aUsageErrorIsAnError() throws {
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--frobnicate"], directory: directory,
                                      journalStream: true)
        #expect(daemon.waitForExit() == 2)
        #expect(daemon.stderr.hasPrefix("<3>error: unknown option '--frobnicate'"), "\(daemon.stderr)")
    }

    /// orientationctl's errors too: `follow`, started by a compositor that runs under
    /// systemd, logs to the journal.
    @Test func orientationctlErrorsAreErrors() throws {
        let ctl = try ChildProcess(product: "orientationctl", arguments: ["--address", "unix:path=\(directory)/no-bus", "get"],
                                   directory: directory, journalStream: true)
        #expect(ctl.waitForExit() == 1)
        #expect(ctl.stderr.hasPrefix("<3>cannot connect"), "\(ctl.stderr)")
    }
}
