import DBus
import Foundation
import Glibc
import Posix
import Testing
import TestSupport

/// The configuration file with real sensors: overrides at start, SIGHUP reloads.
@Suite struct SensorConfigurationTests {
    /// The daemon started with a configuration file holding `text` and `device` in the
    /// testbed; the file's path, for rewriting it.
    static func configured(_ text: String, _ device: String) throws -> (SensorDaemonFixture, Peer, String) {
        let fixture = try SensorDaemonFixture()
        let path = fixture.bus.directory + "/orientationd.conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try fixture.testbed.add(device)
        return (fixture, try fixture.start(extraArguments: ["--config", path]), path)
    }

    static let flip = "[Sensor accel_3d]\nMountMatrix=-1, 0, 0; 0, -1, 0; 0, 0, 1\n"

    @Test func mountMatrixOverrideFromTheFile() throws {
        let fixture = try SensorDaemonFixture()
        let path = fixture.bus.directory + "/orientationd.conf"
        try ("[Sensor]\nPollIntervalMs=50\n" + Self.flip).write(toFile: path, atomically: true, encoding: .utf8)
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal"),
                                                   extraProperties: ["ACCEL_MOUNT_MATRIX": "0, 1, 0; 1, 0, 0; 0, 0, 1"]))
        let peer = try fixture.start(extraArguments: ["--config", path])
        _ = try SensorPollTests.startClient(peer)
        // The file wins over udev's matrix.
        #expect(try peer.managerProperty("Orientation") == .string("bottom-up"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.contains("(configuration)"))
    }

    @Test func invalidFileStopsTheDaemonNamingLineAndKey() throws {
        let bus = try TestBus()
        let path = bus.directory + "/bad.conf"
        try "[Sensor]\nPollIntervalMs=100\n[Engine]\nOrientationSettleMs=soon\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "simulated", "--config", path],
                                          directory: bus.directory)
        // EX_CONFIG, which the unit's RestartPreventExitStatus names; one line, naming file,
        // line and key.
        #expect(result.status == 78)
        #expect(result.stderr.contains("invalid configuration: \(path):4: OrientationSettleMs: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func invalidFileIsReportedBeforeTheBusIsTried() throws {
        let bus = try TestBus()
        let path = bus.directory + "/bad.conf"
        try "[Engine]\nNoSuchKey=1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(product: "orientationd",
                                          arguments: ["--address", "unix:path=" + bus.directory + "/no-bus-here", "--config", path],
                                          directory: bus.directory)
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(path):2: NoSuchKey: "), "\(result.stderr)")
        #expect(!result.stderr.contains("cannot connect"), "\(result.stderr)")
    }

    @Test func missingExplicitFileStopsTheDaemon() throws {
        let bus = try TestBus()
        let result = try ChildProcess.run(product: "orientationd",
                                          arguments: ["--address", bus.address, "--sensor", "simulated", "--config", bus.directory + "/none.conf"],
                                          directory: bus.directory)
        #expect(result.status == 78)
        #expect(result.stderr.contains("none.conf: cannot read"))
    }

    @Test func sighupReloadsAndKeepsClients() throws {
        let (fixture, peer, path) = try SensorConfigurationTests.configured("# nothing yet\n", FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let client = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))

        // A bad file: rejected with line and key, the old configuration stays.
        try "[Sensor accel_3d]\nMountMatrix=upside down\n".write(toFile: path, atomically: true, encoding: .utf8)
        fixture.daemon?.signal(SIGHUP)
        #expect(fixture.logContains("SIGHUP: invalid configuration, keeping the previous one: \(path):2: MountMatrix: "), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        #expect(fixture.isRunning)

        // A good file: the sensor is reopened with the override, the client still started.
        try Self.flip.write(toFile: path, atomically: true, encoding: .utf8)
        fixture.daemon?.signal(SIGHUP)
        #expect(SensorPollTests.waitForOrientation(peer, "bottom-up"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.get(client, Peer.clientInterface, "Active") == .bool(true))
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        #expect(try peer.get(client, Peer.clientInterface, "DeviceOrientation") == .string("bottom-up"))

        // Engine tunables reload too; a bad one is refused.
        try (Self.flip + "[Engine]\nMaxElevationDeg=500\n").write(toFile: path, atomically: true, encoding: .utf8)
        fixture.daemon?.signal(SIGHUP)
        #expect(fixture.logContains("\(path):4: MaxElevationDeg: "), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("bottom-up"))
    }
}

/// Opt-in laptop-mode suppression: SW_TABLET_MODE = 0 freezes the orientation.
@Suite struct SensorLaptopModeTests {
    static let switchNode = "/dev/input/event5"

    @Test func laptopModeHoldsTheOrientation() throws {
        let fixture = try SensorDaemonFixture()
        let path = fixture.bus.directory + "/orientationd.conf"
        try "[Sensor]\nLaptopModeSuppression=true\n".write(toFile: path, atomically: true, encoding: .utf8)
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5\nE: SUBSYSTEM=input\nA: name=Tablet Switch\nA: capabilities/sw=2\n")
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5/event5\nN: input/event5\nE: SUBSYSTEM=input\nE: DEVNAME=/dev/input/event5\n")
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start(extraArguments: ["--config", path])
        #expect(fixture.stderr.contains("laptop-mode suppression: watching Tablet Switch (event5)"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))

        // Folded into a laptop: turning it changes nothing.
        try fixture.testbed.writeNode(Self.switchNode, FakeDevice.inputEvent(5, 1, 0) + FakeDevice.inputEvent(0, 0, 0))
        #expect(fixture.logContains("Tablet Switch (event5): laptop mode"), "stderr:\n\(fixture.stderr)")
        // Read five times since (a rest of two readings would have turned it), still normal.
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0))
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(reads.timesOfXReads(until: MonotonicClock.milliseconds() + 5_000) { $0.count >= 5 }.count >= 5)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))

        // A tablet again: the orientation follows.
        try fixture.testbed.writeNode(Self.switchNode, FakeDevice.inputEvent(5, 1, 1) + FakeDevice.inputEvent(0, 0, 0))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    /// Convertible keyboards and docks come and go: a switch that appears after start is
    /// picked up, and one that goes away releases the orientation, without a restart.
    @Test func laptopModeFollowsTheSwitchAsItComesAndGoes() throws {
        let (fixture, peer, _) = try SensorConfigurationTests.configured("[Sensor]\nLaptopModeSuppression=true\n", FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        #expect(fixture.logContains("no SW_TABLET_MODE switch found"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))

        // The keyboard is attached: its switch appears, and says laptop mode.
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5\nE: SUBSYSTEM=input\nA: name=Tablet Switch\nA: capabilities/sw=2\n")
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5/event5\nN: input/event5\nE: SUBSYSTEM=input\nE: DEVNAME=/dev/input/event5\n")
        #expect(fixture.logContains("laptop-mode suppression: watching Tablet Switch (event5)"), "stderr:\n\(fixture.stderr)")
        try fixture.testbed.writeNode(Self.switchNode, FakeDevice.inputEvent(5, 1, 0) + FakeDevice.inputEvent(0, 0, 0))
        #expect(fixture.logContains("Tablet Switch (event5): laptop mode"), "stderr:\n\(fixture.stderr)")
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        // Held: the poll keeps reading left-up, the orientation stays normal.
        #expect(!SensorPollTests.waitForOrientation(peer, "left-up", seconds: 1))

        // The keyboard is detached: the switch goes, and the orientation follows again.
        try fixture.testbed.remove("/sys/devices/platform/tablet/input/input5/event5")
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.logContains("no longer suppressed"), "stderr:\n\(fixture.stderr)")
    }

    @Test func suppressionIsOffByDefault() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5\nE: SUBSYSTEM=input\nA: name=Tablet Switch\nA: capabilities/sw=2\n")
        try fixture.testbed.add("P: /devices/platform/tablet/input/input5/event5\nN: input/event5\nE: SUBSYSTEM=input\nE: DEVNAME=/dev/input/event5\n")
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        _ = try SensorPollTests.startClient(peer)
        try fixture.testbed.writeNode(Self.switchNode, FakeDevice.inputEvent(5, 1, 0) + FakeDevice.inputEvent(0, 0, 0))
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("laptop-mode suppression"))
    }
}
