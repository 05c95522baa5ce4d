import Foundation
import Glibc

/// A private dbus-daemon for one test, started through the project's one launcher
/// (scripts/private-bus.sh, which the scripts and benchmarks use too), listening on a
/// socket in its own directory. Killed (SIGKILL, as the notes advise) and its directory
/// removed when released.
public final class TestBus {
    public let directory: String
    public let address: String
    private let process: Process

    /// A session-type bus that lets everyone own and call everything.
    public convenience init() throws {
        try self.init(directory: try makeTemporaryDirectory(prefix: "orientationd-test"))
    }

    /// A bus of `type` listening on `directory`/bus, with `policy` (the <policy>
    /// elements; nil: everyone may own and call everything); returns once it listens.
    public init(directory: String, type: String = "session", policy: String? = nil) throws {
        self.directory = directory
        var arguments = [repositoryRoot + "/scripts/private-bus.sh", directory, type]
        if let policy {
            let path = directory + "/policy.xml"
            try policy.write(toFile: path, atomically: true, encoding: .utf8)
            arguments.append(path)
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = arguments
        let ready = Pipe()
        process.standardOutput = ready
        // Its complaints (it cannot raise its fd limit when not root) go to a file.
        _ = FileManager.default.createFile(atPath: directory + "/bus.log", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory + "/bus.log")
        try process.run()
        // dbus-daemon prints its address once it listens: wait for that line.
        var pollfd = Glibc.pollfd(fd: ready.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        let line = poll(&pollfd, 1, 10_000) == 1 ? String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self) : ""
        guard line.hasPrefix("unix:") else {
            let log = (try? String(contentsOfFile: directory + "/bus.log", encoding: .utf8)) ?? ""
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("dbus-daemon did not start listening in \(directory):\n\(log)")
        }
        address = "unix:path=" + directory + "/bus"
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Kills the bus now (a test of what its clients do when it goes).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The one directory under $TMPDIR (or /tmp) that holds every temporary directory of
/// this test process, made at the first `makeTemporaryDirectory` and removed with all
/// it holds when the process exits: tests that forget to clean up, or fail before they
/// do, leave nothing behind. Mode 0755: unprivileged peers (the bus-policy and sway
/// tests' users) must reach into the directories below.
private let runDirectory: String? = {
    var template = Array((NSTemporaryDirectory() + "/orientationd-tests.XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { return nil }
    let path = String(cString: made)
    chmod(path, 0o755)
    atexit {
        if let runDirectory { try? FileManager.default.removeItem(atPath: runDirectory) }
    }
    return path
}()

/// A new directory named PREFIX.XXXXXX in the test process's own temporary directory
/// (removed when the process exits; tests that can remove theirs earlier do).
public func makeTemporaryDirectory(prefix: String) throws -> String {
    guard let parent = runDirectory else { throw TestFailure("cannot make a temporary directory in \(NSTemporaryDirectory())") }
    var template = Array((parent + "/" + prefix + ".XXXXXX").utf8CString)
    guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
    return String(cString: result)
}

/// Polls `condition` until it holds or `seconds` pass. For conditions that change
/// in other processes; bus conditions use a loop that processes messages.
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// The directory holding the built products (next to the test bundle).
public let productsDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
    if url.path.hasSuffix(".xctest") { url = url.deletingLastPathComponent() }
    return url.path
}()

/// The repository root, for checked-in files such as dbus/*.xml and scripts/.
public let repositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
