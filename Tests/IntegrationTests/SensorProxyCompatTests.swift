@_spi(Testing) import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// `--sensor-proxy-compat`: iio-sensor-proxy's net.hadess.SensorProxy from the same
/// sensor and engine, for its existing clients.
@Suite struct SensorProxyCompatTests {
    static let name = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let compassPath = "/net/hadess/SensorProxy/Compass"

    func property(_ peer: Peer, _ property: String, path: String = Self.path, interface: String = Self.name) throws -> Value {
        try peer.get(path, interface, property)
    }

    @Test func everyMemberIsThereWithIioSensorProxysValues() throws {
        let fixture = try DaemonFixture(extraArguments: ["--sensor-proxy-compat"])
        let peer = try fixture.peer()
        #expect(try peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(Self.name)],
                              destination: "org.freedesktop.DBus").first == .bool(true))
        func get(_ p: String, path: String = Self.path, interface: String = Self.name) throws -> Value {
            try peer.call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(p)], destination: Self.name)[0].unwrappedVariant
        }
        #expect(try get("HasAccelerometer") == .bool(true))
        #expect(try get("AccelerometerOrientation") == .string("undefined"))
        #expect(try get("AccelerometerTilt") == .string("undefined"))
        // The other sensors are the machine's (the umockdev tests give it some); here
        // every property answers with its type.
        for (property, type) in [("HasAmbientLight", "b"), ("LightLevelUnit", "s"), ("LightLevel", "d"), ("HasProximity", "b"),
                                 ("ProximityNear", "b")] {
            #expect(try get(property).signature == type, "\(property)")
        }
        #expect(try get("HasCompass", path: Self.compassPath, interface: Self.name + ".Compass").signature == "b")
        #expect(try get("CompassHeading", path: Self.compassPath, interface: Self.name + ".Compass").signature == "d")
        for member in ["ClaimLight", "ReleaseLight", "ClaimProximity", "ReleaseProximity"] {
            _ = try peer.call(Self.path, Self.name, member, destination: Self.name)
        }
        for member in ["ClaimCompass", "ReleaseCompass"] {
            _ = try peer.call(Self.compassPath, Self.name + ".Compass", member, destination: Self.name)
        }
        // Those claims do not start the accelerometer.
        #expect(try peer.managerProperty("ActiveClients") == .uint32(0))
        let xml = try peer.call(Self.path, "org.freedesktop.DBus.Introspectable", "Introspect", destination: Self.name)[0].stringValue ?? ""
        for member in ["ClaimAccelerometer", "ReleaseAccelerometer", "AccelerometerTilt", "HasAmbientLight"] {
            #expect(xml.contains("\"\(member)\""))
        }
    }

    @Test func claimGivesCurrentReadingsAndChangesGoToClaimersOnly() throws {
        let fixture = try DaemonFixture(extraArguments: ["--sensor-proxy-compat"])
        let claimer = try fixture.peer(watchManager: false)
        let bystander = try fixture.peer(watchManager: false)
        for peer in [claimer, bystander] {
            try peer.connection.addMatch("type='signal',sender='\(Self.name)',path='\(Self.path)'")
        }
        fixture.hold(.bottomUp, durationMs: 300)
        #expect(fixture.drained())
        _ = try claimer.call(Self.path, Self.name, "ClaimAccelerometer", destination: Self.name)
        // Current when the claim returns.
        #expect(try claimer.call(Self.path, "org.freedesktop.DBus.Properties", "Get",
                                 [.string(Self.name), .string("AccelerometerOrientation")], destination: Self.name)[0].unwrappedVariant
                == .string("bottom-up"))
        #expect(try claimer.managerProperty("Orientation") == .string("bottom-up"))
        claimer.clearSignals()
        bystander.clearSignals()

        fixture.hold(.rightUp, durationMs: 1500)
        #expect(claimer.waitUntil { claimer.signalSummaries(path: Self.path).contains { $0.contains("AccelerometerOrientation=right-up") } })
        // Same numbers as the native API.
        #expect(try claimer.managerProperty("Orientation") == .string("right-up"))
        try bystander.call(Self.path, "org.freedesktop.DBus.Peer", "Ping", destination: Self.name)
        bystander.connection.dispatchQueued()
        #expect(bystander.signalSummaries(path: Self.path).isEmpty)

        // Released: the sensor is no longer read.
        _ = try claimer.call(Self.path, Self.name, "ReleaseAccelerometer", destination: Self.name)
        fixture.hold(.normal, durationMs: 1500)
        #expect(fixture.drained())
        try claimer.call(Self.path, "org.freedesktop.DBus.Peer", "Ping", destination: Self.name)
        #expect(try claimer.managerProperty("Orientation") == .string("right-up"))
    }

    @Test func claimsDieWithTheirConnection() throws {
        let fixture = try DaemonFixture(extraArguments: ["--sensor-proxy-compat"])
        let observer = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())
        var claimer: Peer? = try fixture.peer()
        _ = try claimer!.call(Self.path, Self.name, "ClaimAccelerometer", destination: Self.name)
        #expect(waitForStderr(fixture, containing: "claimed the accelerometer"))
        claimer!.connection.close()
        claimer = nil
        #expect(waitForStderr(fixture, containing: "released the accelerometer"))
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(fixture.drained())
        try observer.call(Peer.manager, "org.freedesktop.DBus.Peer", "Ping")
        #expect(try observer.managerProperty("Orientation") == .string("normal"))
    }

    @Test func claimIsCheckedWithIioSensorProxysPolkitAction() throws {
        let fixture = try DaemonFixture(extraArguments: ["--sensor-proxy-compat", "--polkit"])
        let peer = try fixture.peer()
        let mock = try MockService(template: "polkitd", name: "org.freedesktop.PolicyKit1", bus: fixture.bus, peer: peer)
        let denied = peer.callError(Self.path, Self.name, "ClaimAccelerometer")
        #expect(denied?.name == "org.orientationd.Orientation1.Error.NotAuthorized")
        #expect(denied?.message.contains("net.hadess.SensorProxy.claim-sensor") == true)
        try peer.call("/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock", "SetAllowed",
                      [.strings(["net.hadess.SensorProxy.claim-sensor"])], destination: "org.freedesktop.PolicyKit1")
        _ = try peer.call(Self.path, Self.name, "ClaimAccelerometer", destination: Self.name)
        withExtendedLifetime(mock) {}
    }

    /// Debian's monitor-sensor, iio-sensor-proxy's own client, pointed at the test bus.
    @Test func monitorSensorWorksUnchanged() throws {
        let (fixture, peer) = try DaemonFixture.upright(extraArguments: ["--sensor-proxy-compat"])
        let monitor = try MonitorSensor(bus: fixture.bus)
        let output = monitor.output
        // It reads the properties, claims, and gets the fresh reading as a change.
        #expect(waitUntil(seconds: 15) { output().contains("=== Has accelerometer") }, "monitor-sensor printed:\n\(output())")
        #expect(waitUntil(seconds: 15) { output().contains("Accelerometer orientation changed: normal") }, "monitor-sensor printed:\n\(output())")
        #expect(waitForStderr(fixture, containing: "claimed the accelerometer"))
        #expect(try peer.managerProperty("ActiveClients") == .uint32(0))
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(waitUntil(seconds: 15) { output().contains("Accelerometer orientation changed: left-up") }, "monitor-sensor printed:\n\(output())")
    }

    /// The facade over a real (umockdev) IIO accelerometer, as the sensor tests set it
    /// up, with monitor-sensor as the client: same sensor, same engine, same values.
    @Test func monitorSensorOverAnIIODeviceUnderUmockdev() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start(extraArguments: ["--sensor-proxy-compat"])
        let monitor = try MonitorSensor(bus: fixture.bus)
        let output = monitor.output
        #expect(waitUntil(seconds: 15) { output().contains("Accelerometer orientation changed: normal") }, "monitor-sensor printed:\n\(output())")
        try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_x_raw", String(FakeDevice.raw("left-up").0))
        try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_y_raw", String(FakeDevice.raw("left-up").1))
        try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_z_raw", String(FakeDevice.raw("left-up").2))
        #expect(waitUntil(seconds: 15) { output().contains("Accelerometer orientation changed: left-up") }, "monitor-sensor printed:\n\(output())")
        // The native API reports the same.
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }
}

/// Debian's monitor-sensor (iio-sensor-proxy's client) with "the system bus" pointed at
/// a test bus; killed when released.
final class MonitorSensor {
    private let process = Process()
    private let outputPath: String

    init(bus: TestBus) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        outputPath = bus.directory + "/monitor-sensor-\(UUID().uuidString.prefix(8)).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/monitor-sensor")
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: outputPath)
        try process.run()
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Everything it printed so far.
    func output() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
}
