import DBus
import Foundation
import Testing

/// The real accelerometer is the default on every bus; a simulated device is used only
/// when asked for, and the daemon says at start which sensor it uses.
@Suite struct DefaultSensorTests {
    @Test func noSensorArgumentUsesTheAccelerometerAndSaysSo() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll())
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
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
        #expect(fixture.logContains("no display accelerometer found"), "stderr:\n\(fixture.stderr)")
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
