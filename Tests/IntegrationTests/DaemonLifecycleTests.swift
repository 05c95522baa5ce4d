import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// The daemon on a real private bus: name, introspection, properties, signals, exit.
@Suite struct DaemonLifecycleTests {
    @Test func takesItsNameAndExportsTheManager() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let xml = try peer.call(Peer.manager, "org.freedesktop.DBus.Introspectable", "Introspect")[0].stringValue ?? ""
        #expect(xml.contains("<interface name=\"org.orientationd.Orientation1\">"))
        #expect(xml.contains("<method name=\"CreateClient\">"))
        #expect(xml.contains("<signal name=\"OrientationWillChange\">"))
        #expect(xml.contains("<interface name=\"org.freedesktop.DBus.Properties\">"))
        #expect(xml.contains("<interface name=\"org.freedesktop.DBus.Peer\">"))
        // Parent nodes are walkable from the root.
        let root = try peer.call("/", "org.freedesktop.DBus.Introspectable", "Introspect")[0].stringValue ?? ""
        #expect(root.contains("<node name=\"org\"/>"))
        try peer.call(Peer.manager, "org.freedesktop.DBus.Peer", "Ping")
    }

    @Test func managerPropertiesHaveTheirInitialValues() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let all = try peer.call(Peer.manager, "org.freedesktop.DBus.Properties", "GetAll", [.string(Peer.managerInterface)])[0]
        let entries = Dictionary(uniqueKeysWithValues: (all.stringKeyedEntries ?? []).map { ($0.key, $0.value.unwrappedVariant) })
        #expect(entries["HasSensor"] == .bool(true))
        #expect(entries["SensorBackend"] == .string("replay"))
        #expect(entries["SensorName"] == .string("Replay of " + (fixture.fifoPath as NSString).lastPathComponent))
        #expect(entries["Orientation"] == .string("undefined"))
        #expect(entries["Tilt"] == .string("undefined"))
        #expect(entries["RotationLocked"] == .bool(false))
        #expect(entries["ActiveClients"] == .uint32(0))
        // A replay has no gyroscope.
        #expect(entries["GyroscopeName"] == .string(""))
        // Nor a device.
        #expect(entries["SensorDevice"] == .string(""))
        #expect(entries.count == 9)
    }

    @Test func busctlSeesTheSameObject() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        let introspect = try runTool("/usr/bin/busctl", ["--address", fixture.bus.address, "introspect",
                                                         Peer.service, Peer.manager])
        #expect(introspect.status == 0)
        #expect(introspect.stdout.contains(".CreateClient"))
        #expect(introspect.stdout.contains(".ActiveClients"))
        let property = try runTool("/usr/bin/busctl", ["--address", fixture.bus.address, "get-property",
                                                       Peer.service, Peer.manager, Peer.managerInterface, "SensorBackend"])
        #expect(property.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"replay\"")
        let created = try runTool("/usr/bin/busctl", ["--address", fixture.bus.address, "call", Peer.service, Peer.manager,
                                                      Peer.managerInterface, "CreateClient", "a{sv}", "1",
                                                      "SupportedOrientations", "as", "1", "normal"])
        #expect(created.stdout.hasPrefix("o \"/org/orientationd/Orientation1/Client/"))
    }

    /// Once nothing is being read (the last client stopped), the daemon hands back the
    /// code pages the busy part touched (CodePages, released when the loop falls quiet),
    /// and works on as before: the next call, the next Start and rotation are answered.
    @Test func handsBackItsCodePagesWhenQuiet() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let pid = fixture.daemon.pid
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(fixture.drained())
        #expect(peer.waitUntil { (try? peer.managerProperty("Orientation")) == .string("left-up") })
        let busy = try #require(residentExecutableKiB(pid: pid))
        try peer.call(path, Peer.clientInterface, "Stop")
        var quiet = busy
        #expect(waitUntil(seconds: 5) {
            quiet = residentExecutableKiB(pid: pid) ?? busy
            return quiet * 2 < busy
        }, "resident code: \(busy) KiB while reading, \(quiet) KiB once quiet")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        try peer.call(path, Peer.clientInterface, "Start")
        fixture.hold(.normal, durationMs: 1500)
        #expect(peer.waitUntil { (try? peer.managerProperty("Orientation")) == .string("normal") })
        #expect(!fixture.daemon.stderr.contains("cannot release code pages"))
    }

    @Test func sigtermStopsCleanlyWithStatusZero() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.daemon.signal(SIGTERM)
        #expect(fixture.daemon.waitForExit() == 0)
    }

    @Test func sigintStopsCleanlyWithStatusZero() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.daemon.signal(SIGINT)
        #expect(fixture.daemon.waitForExit() == 0)
    }

    /// SIGHUP's log line names the file read, or says the defaults are used when the
    /// default file is absent (as on a machine where it was never installed), rather than
    /// naming a file that is not there.
    @Test func sighupSaysWhatItReloaded() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.daemon.signal(SIGHUP)
        let path = "/etc/orientationd/orientationd.conf"
        let expected = FileManager.default.fileExists(atPath: path)
            ? "SIGHUP: configuration reloaded from \(path)" : "SIGHUP: configuration reloaded (no \(path): the defaults)"
        #expect(waitUntil(seconds: 10) { fixture.daemon.stderr.contains(expected) }, "stderr:\n\(fixture.daemon.stderr)")
        fixture.daemon.signal(SIGTERM)
        #expect(fixture.daemon.waitForExit() == 0)
    }

    @Test func losingTheBusIsAnErrorExit() throws {
        var fixture: DaemonFixture? = try DaemonFixture()
        _ = try fixture!.peer()
        let daemon = fixture!.daemon
        // Kill only the bus: the daemon must notice and exit 1 with a clear message.
        let busPID = try #require(pidOfBus(fixture!.bus))
        kill(busPID, SIGKILL)
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("lost the connection"))
        fixture = nil
    }

    @Test func secondDaemonOnTheSameBusRefusesToStart() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        let second = try ChildProcess.run(product: "orientationd", arguments: ["--address", fixture.bus.address, "--sensor", "simulated"],
                                          directory: fixture.bus.directory)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already owned"))
    }
}

func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, stdout, stderr)
}

/// The dbus-daemon serving `bus` (found by its config path on its command line).
func pidOfBus(_ bus: TestBus) -> Int32? {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
        guard let pid = Int32(entry),
              let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
        let text = String(decoding: cmdline, as: UTF8.self)
        if text.contains("dbus-daemon"), text.contains(bus.directory + "/bus.conf") { return pid }
    }
    return nil
}
