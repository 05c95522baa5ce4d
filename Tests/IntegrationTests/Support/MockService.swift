import Foundation
import Glibc
import TestSupport

/// A python-dbusmock template (Debian's python3-dbusmock) serving on a test bus, e.g.
/// `polkitd` as org.freedesktop.PolicyKit1. Killed when released.
final class MockService {
    let process = Process()

    /// Starts the template and waits (bounded) until it owns `name` on `bus`.
    init(template: String, name: String, bus: TestBus, peer: Peer) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "dbusmock", "--template", template, "--system"]
        // The templates are system-bus services: point "the system bus" at the test bus.
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        process.environment = environment
        let log = bus.directory + "/" + template + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let reply = try? peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)],
                                          destination: "org.freedesktop.DBus"),
               reply.first == .bool(true) { return }
            guard process.isRunning else { break }
            peer.waitUntil(seconds: 0.02) { false }
        }
        throw TestFailure("dbusmock \(template) did not take \(name): " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
