import Foundation
import Glibc

/// A private dbus-daemon for one test, listening on a socket in its own directory.
/// Killed (SIGKILL, as the notes advise) and its directory removed when released.
final class TestBus {
    let directory: String
    let address: String
    private let process: Process

    /// A session-type bus that lets everyone own and call everything.
    convenience init() throws {
        let directory = try makeTemporaryDirectory(prefix: "orientationd-test")
        try self.init(directory: directory, type: "session", rules: """
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            """)
    }

    /// A bus of `type` listening on `directory`/bus, with `rules` (policies, includes)
    /// as its configuration; returns once it listens.
    init(directory: String, type: String, rules: String) throws {
        self.directory = directory
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(type)</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
            \(rules)
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=" + directory + "/bus.conf", "--nofork", "--nopidfile", "--print-address"]
        let ready = Pipe()
        process.standardOutput = ready
        // Its complaints (it cannot raise its fd limit when not root) go to a file.
        _ = FileManager.default.createFile(atPath: directory + "/bus.log", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory + "/bus.log")
        try process.run()
        // dbus-daemon prints its address once it listens: wait for that line.
        var pollfd = Glibc.pollfd(fd: ready.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, 10_000) == 1, !ready.fileHandleForReading.availableData.isEmpty else {
            let log = (try? String(contentsOfFile: directory + "/bus.log", encoding: .utf8)) ?? ""
            throw TestFailure("dbus-daemon did not start listening on \(socket):\n\(log)")
        }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func makeTemporaryDirectory(prefix: String) throws -> String {
    var template = Array((NSTemporaryDirectory() + "/" + prefix + ".XXXXXX").utf8CString)
    guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
    return String(cString: result)
}

/// Polls `condition` until it holds or `seconds` pass. For conditions that change
/// in other processes; bus conditions use `Peer.waitUntil`, which processes messages.
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// The directory holding the built products (next to the test bundle).
let productsDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
    if url.path.hasSuffix(".xctest") { url = url.deletingLastPathComponent() }
    return url.path
}()

/// The repository root, for checked-in files such as dbus/*.xml.
let repositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
