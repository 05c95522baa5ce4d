import DBus
import Foundation
import Testing
import TestSupport

/// The real accelerometer is the default on every bus; a simulated device is used only
/// when asked for, and the daemon says at start which sensor it uses.
@Suite struct DefaultSensorTests {
    @Test func noSensorArgumentUsesTheAccelerometerAndSaysSo() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll())
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
        #expect(try peer.managerProperty("SensorDevice") == .string("iio:device0"))
        #expect(fixture.logContains("using accel_3d"), "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("simulated"))
    }

    @Test func explicitAutoIsTheSameAsNone() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll())
        let peer = try fixture.start(extraArguments: ["--sensor", "auto"])
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"), "stderr:\n\(fixture.stderr)")
    }

    @Test func noAccelerometerSaysHowToTryTheSimulatedOne() throws {
        let fixture = try SensorDaemonFixture()
        let peer = try fixture.start()
        #expect(try peer.managerProperty("HasSensor") == .bool(false))
        #expect(try peer.managerProperty("SensorBackend") != .string("simulated"))
        #expect(try peer.managerProperty("SensorDevice") == .string(""))
        #expect(fixture.logContains("no display accelerometer found; waiting for one to appear"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.contains("--sensor simulated"), "stderr:\n\(fixture.stderr)")
    }

    @Test func simulatedOnlyWhenAskedAndNamedAsSuch() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll())
        let peer = try fixture.start(extraArguments: ["--sensor", "simulated"])
        #expect(try peer.managerProperty("SensorBackend") == .string("simulated"))
        #expect(fixture.logContains("using the simulated sensor"), "stderr:\n\(fixture.stderr)")
    }
}

/// `orientationctl monitor` says when there is no accelerometer, and when one comes or goes.
@Suite struct MonitorSensorPresenceTests {
    @Test func monitorSaysWhenThereIsNoSensorAndWhenOneAppears() throws {
        let fixture = try SensorDaemonFixture()
        _ = try fixture.start()
        let monitor = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                       directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("sensor: no accelerometer (HasSensor false); waiting for one") },
                "stdout:\n\(monitor.stdout)\nstderr:\n\(monitor.stderr)")
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up")))
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("sensor: accel_3d (iio:device0)") }, "stdout:\n\(monitor.stdout)")
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("device left-up") }, "stdout:\n\(monitor.stdout)")
        try fixture.testbed.remove(FakeDevice.syspath(0))
        #expect(waitUntil(seconds: 10) { monitor.stdout.components(separatedBy: "no accelerometer").count == 3 }, "stdout:\n\(monitor.stdout)")
        monitor.signal(SIGINT)
        #expect(monitor.waitForExit() == 0)
    }
}
