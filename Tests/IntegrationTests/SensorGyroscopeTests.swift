import DBus
import Foundation
import Testing
import TestSupport

/// A gyroscope on the accelerometer's own IIO device (a combined IMU), as umockdev
/// describes one: GyroscopeName, the configuration's Gyroscope key, and a gyroscope
/// that turns out unusable.
@Suite struct SensorGyroscopeTests {
    /// An IIO accelerometer polled, with `in_anglvel_*` beside it (rad/s at scale 0.001).
    static func imu(gyroscope: [String: String] = ["in_anglvel_x_raw": "3", "in_anglvel_y_raw": "-2", "in_anglvel_z_raw": "1",
                                                  "in_anglvel_scale": "0.001"]) -> String {
        FakeDevice.iioPoll(raw: FakeDevice.raw("normal"), extraAttributes: gyroscope)
    }

    func start(_ device: String, config: String? = nil) throws -> (SensorDaemonFixture, Peer) {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(device)
        var arguments: [String] = []
        if let config {
            let path = fixture.bus.directory + "/orientationd.conf"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            arguments = ["--config", path]
        }
        return (fixture, try fixture.start(extraArguments: arguments))
    }

    @Test func aCombinedIMUsGyroscopeIsNamedAndTheOrientationFollows() throws {
        let (fixture, peer) = try start(Self.imu())
        #expect(try peer.managerProperty("GyroscopeName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func gyroscopeOffInTheConfigurationIsNotRead() throws {
        let (fixture, peer) = try start(Self.imu(), config: "[Sensor]\nGyroscope = off\n")
        #expect(try peer.managerProperty("GyroscopeName") == .string(""), "stderr:\n\(fixture.stderr)")
    }

    @Test func anAccelerometerWithoutAGyroscopeNamesNone() throws {
        let (fixture, peer) = try start(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        #expect(try peer.managerProperty("GyroscopeName") == .string(""), "stderr:\n\(fixture.stderr)")
    }

    @Test func aGyroscopeWithAZeroScaleIsNotUsedAndSaysWhy() throws {
        let (fixture, peer) = try start(Self.imu(gyroscope: ["in_anglvel_x_raw": "3", "in_anglvel_y_raw": "-2", "in_anglvel_z_raw": "1",
                                                             "in_anglvel_scale": "0"]))
        #expect(try peer.managerProperty("GyroscopeName") == .string(""))
        #expect(fixture.logContains("gyroscope not used: in_anglvel_scale is 0"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
    }

    @Test func aStuckGyroscopeIsGivenUpAndAnnounced() throws {
        // umockdev's attributes do not change by themselves: the same reading for seconds,
        // which no real gyroscope's noise gives.
        let (fixture, peer) = try start(Self.imu())
        _ = try SensorPollTests.startClient(peer)
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("GyroscopeName")) == .string("") },
                "stderr:\n\(fixture.stderr)")
        #expect(peer.signalSummaries(path: Peer.manager).contains { $0.contains("GyroscopeName=") },
                "\(peer.signalSummaries(path: Peer.manager))")
        #expect(fixture.logContains("gyroscope stuck"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.components(separatedBy: "gyroscope stuck").count == 2, "said once")
        // The accelerometer goes on alone.
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("right-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "right-up"), "stderr:\n\(fixture.stderr)")
    }
}
