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

    /// A daemon on a testbed holding `devices`, added in that order, with `config` as its
    /// configuration file if given.
    func start(_ devices: String..., config: String? = nil) throws -> (SensorDaemonFixture, Peer) {
        let fixture = try SensorDaemonFixture()
        for device in devices { try fixture.testbed.add(device) }
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

    @Test func getAndMonitorShowTheGyroscope() throws {
        let (fixture, peer) = try start(Self.imu())
        let get = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "get"],
                                       directory: fixture.bus.directory)
        #expect(get.stdout.contains("GyroscopeName") && get.stdout.contains("accel_3d (iio:device0)"), "\(get.stdout)")
        let monitor = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                       directory: fixture.bus.directory)
        #expect(peer.waitUntil { monitor.stdout.contains("sensor: accel_3d (iio:device0), gyroscope: accel_3d (iio:device0)") },
                "\(monitor.stdout)")
        monitor.signal(SIGTERM)
        _ = monitor.waitForExit()
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

    @Test func aGyroscopeWithAnAxisMissingIsNotUsedAndSaysWhy() throws {
        let (fixture, peer) = try start(Self.imu(gyroscope: ["in_anglvel_x_raw": "3", "in_anglvel_y_raw": "-2",
                                                             "in_anglvel_scale": "0.001"]))
        #expect(try peer.managerProperty("GyroscopeName") == .string(""))
        #expect(fixture.logContains("gyroscope not used: in_anglvel_z_raw missing"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
    }

    @Test func aGyroscopeWithAScaleThatIsNoNumberIsNotUsedAndSaysWhy() throws {
        let (fixture, peer) = try start(Self.imu(gyroscope: ["in_anglvel_x_raw": "3", "in_anglvel_y_raw": "-2", "in_anglvel_z_raw": "1",
                                                             "in_anglvel_scale": "0.001 rad/s"]))
        #expect(try peer.managerProperty("GyroscopeName") == .string(""))
        #expect(fixture.logContains("gyroscope not used: in_anglvel_scale \"0.001 rad/s\" is not a number"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    /// A daemon on `device` (a combined IMU), its gyroscope named, a client started (its
    /// path returned), and then the gyroscope given up: GyroscopeName announced as ""
    /// (waited for as the signal itself: a Get's reply can overtake the dispatch of a
    /// signal queued before it) and read back.
    func startUntilTheGyroscopeIsGivenUp(_ device: String) throws -> (SensorDaemonFixture, Peer, String) {
        let (fixture, peer) = try start(device)
        #expect(try peer.managerProperty("GyroscopeName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        let path = try SensorPollTests.startClient(peer)
        #expect(peer.waitUntil(seconds: 10) { peer.signalSummaries(path: Peer.manager).contains { $0.contains("GyroscopeName=") } },
                "\(peer.signalSummaries(path: Peer.manager)) stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("GyroscopeName") == .string(""))
        return (fixture, peer, path)
    }

    /// The accelerometer, alone, still follows a turn.
    func expectTheAccelerometerGoesOnAlone(_ fixture: SensorDaemonFixture, _ peer: Peer) throws {
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("right-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "right-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func aStuckGyroscopeIsGivenUpAndAnnounced() throws {
        // umockdev's attributes do not change by themselves: the same reading for seconds,
        // which no real gyroscope's noise gives.
        let (fixture, peer, _) = try startUntilTheGyroscopeIsGivenUp(Self.imu())
        #expect(fixture.logContains("gyroscope stuck"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.components(separatedBy: "gyroscope stuck").count == 2, "said once")
        try expectTheAccelerometerGoesOnAlone(fixture, peer)
    }

    @Test func aSaturatedGyroscopeIsGivenUpAndAnnounced() throws {
        // 100 rad/s (5,700°/s) on one axis, for good: beyond any real gyroscope's range,
        // though a number the device can give.
        let (fixture, peer, _) = try startUntilTheGyroscopeIsGivenUp(
            Self.imu(gyroscope: ["in_anglvel_x_raw": "100000", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0",
                                 "in_anglvel_scale": "0.001"]))
        #expect(fixture.stderr.components(separatedBy: "saturated").count == 3, "said when ignored, and when given up:\n\(fixture.stderr)")
        #expect(fixture.logContains("gyroscope gave no usable reading for seconds"), "stderr:\n\(fixture.stderr)")
        try expectTheAccelerometerGoesOnAlone(fixture, peer)
    }

    @Test func aGyroscopeTheEngineGaveUpIsNoLongerRead() throws {
        let (fixture, peer, path) = try startUntilTheGyroscopeIsGivenUp(Self.imu())
        #expect(fixture.logContains("gyroscope stuck"), "stderr:\n\(fixture.stderr)")
        // Read at the next tick, an axis that holds no number would be said in the log
        // (written before the turn below is announced: the gyroscope is read before the
        // reading it goes with).
        try fixture.testbed.rewriteAttribute(FakeDevice.syspath(0), "in_anglvel_y_raw", "garbage")
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("right-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "right-up"), "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("gyroscope reading missing or malformed"), "stderr:\n\(fixture.stderr)")
        // Nor at the next claim: a broken gyroscope is said once, and not trusted again.
        try fixture.testbed.rewriteAttribute(FakeDevice.syspath(0), "in_anglvel_y_raw", "-2")
        try peer.call(path, Peer.clientInterface, "Stop")
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("GyroscopeName") == .string(""), "stderr:\n\(fixture.stderr)")
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("normal"))
        #expect(SensorPollTests.waitForOrientation(peer, "normal"), "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("gyroscope reading missing or malformed"), "stderr:\n\(fixture.stderr)")
        #expect(peer.signalSummaries(path: Peer.manager).filter { $0.contains("GyroscopeName=") }.count == 1,
                "announced once: \(peer.signalSummaries(path: Peer.manager))")
        #expect(fixture.stderr.components(separatedBy: "gyroscope stuck").count == 2, "said once:\n\(fixture.stderr)")
        // A reload opens the sensor afresh: the gyroscope is tried again.
        fixture.daemon?.signal(SIGHUP)
        #expect(peer.waitUntil { (try? peer.managerProperty("GyroscopeName")) == .string("accel_3d (iio:device0)") },
                "stderr:\n\(fixture.stderr)")
    }

    @Test func aGyroscopeThatGivesNoNumbersIsGivenUpAndAnnounced() throws {
        // Found (its files are there, its scale is good), but an axis never holds a number.
        // A reading skipped now and then is said once; a second of them gives it up.
        let (fixture, peer, _) = try startUntilTheGyroscopeIsGivenUp(
            Self.imu(gyroscope: ["in_anglvel_x_raw": "3", "in_anglvel_y_raw": "garbage", "in_anglvel_z_raw": "1",
                                 "in_anglvel_scale": "0.001"]))
        #expect(fixture.stderr.components(separatedBy: "gyroscope reading missing or malformed").count == 2, "said once:\n\(fixture.stderr)")
        #expect(fixture.logContains("gave no usable reading for"), "stderr:\n\(fixture.stderr)")
        try expectTheAccelerometerGoesOnAlone(fixture, peer)
    }

    /// A HID sensor hub's accel_3d and, in another collection of the same hub, a
    /// gyro_3d (each its own IIO device), each with an optional label.
    static func hub(accelLabel: String? = nil, gyroLabel: String? = nil) -> (accel: String, gyro: String) {
        let hub = "/devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/0003:8087:0A04.0001"
        var accel = "P: \(hub)/HID-SENSOR-200073.0/iio:device0\nE: SUBSYSTEM=iio\nE: ORIENTATIOND_TYPE=iio-poll-accel\n"
        accel += "A: name=accel_3d\nA: in_accel_x_raw=0\nA: in_accel_y_raw=-1000\nA: in_accel_z_raw=0\nA: in_accel_scale=0.00980665\n"
        if let accelLabel { accel += "A: label=\(accelLabel)\n" }
        var gyro = "P: \(hub)/HID-SENSOR-200076.0/iio:device1\nE: SUBSYSTEM=iio\n"
        gyro += "A: name=gyro_3d\nA: in_anglvel_x_raw=12\nA: in_anglvel_y_raw=-7\nA: in_anglvel_z_raw=3\nA: in_anglvel_scale=0.000174533\n"
        if let gyroLabel { gyro += "A: label=\(gyroLabel)\n" }
        return (accel, gyro)
    }

    /// A HID-style pair, the gyroscope added first: already there when the accelerometer is found.
    func startHub(_ devices: (accel: String, gyro: String), config: String? = nil) throws -> (SensorDaemonFixture, Peer) {
        try start(devices.gyro, devices.accel, config: config)
    }

    @Test func aGyroscopeThatGoesAwayIsAnnouncedAndTheAccelerometerGoesOnAlone() throws {
        // Its readings never change under umockdev: not taken for stuck within the test.
        let (fixture, peer) = try startHub(Self.hub(), config: "[Engine]\nGyroStuckMs = 600000\n")
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("GyroscopeName") == .string("gyro_3d (iio:device1)"))
        try fixture.testbed.remove("/sys/devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/0003:8087:0A04.0001/HID-SENSOR-200076.0/iio:device1")
        #expect(peer.waitUntil { (try? peer.managerProperty("GyroscopeName")) == .string("") }, "stderr:\n\(fixture.stderr)")
        #expect(fixture.logContains("the gyroscope gyro_3d (iio:device1) went away"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
        try SensorPollTests.setRaw(fixture, "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/0003:8087:0A04.0001/HID-SENSOR-200073.0/iio:device0",
                                   FakeDevice.raw("left-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
        // Back (a sensor hub reset): paired again, and the orientation is kept.
        try fixture.testbed.add(Self.hub().gyro)
        #expect(peer.waitUntil { (try? peer.managerProperty("GyroscopeName")) == .string("gyro_3d (iio:device1)") },
                "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }

    @Test func aHIDSensorHubsGyroscopeBesideItsAccelerometerIsPaired() throws {
        let (fixture, peer) = try startHub(Self.hub())
        #expect(try peer.managerProperty("SensorName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("GyroscopeName") == .string("gyro_3d (iio:device1)"), "stderr:\n\(fixture.stderr)")
    }

    @Test func aDisplayAccelerometerIsNeverPairedWithABaseGyroscope() throws {
        let (fixture, peer) = try startHub(Self.hub(accelLabel: "accel-display", gyroLabel: "anglvel-base"))
        #expect(try peer.managerProperty("SensorName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("GyroscopeName") == .string(""), "stderr:\n\(fixture.stderr)")
        // The same places: paired.
        let (second, same) = try startHub(Self.hub(accelLabel: "accel-display", gyroLabel: "anglvel-display"))
        #expect(try same.managerProperty("GyroscopeName") == .string("gyro_3d (iio:device1)"), "stderr:\n\(second.stderr)")
    }

    @Test func aBufferedHIDAccelerometerIsPairedWithItsHubsGyroscope() throws {
        let hub = "/devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/0003:8087:0A04.0001"
        let accel = FakeDevice.iioBuffer(raw: FakeDevice.raw("normal"))
            .replacingOccurrences(of: "P: /devices/platform/accel0/iio:device0", with: "P: \(hub)/HID-SENSOR-200073.0/iio:device0")
        let (fixture, peer) = try startHub((accel, Self.hub().gyro))
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("GyroscopeName") == .string("gyro_3d (iio:device1)"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        try fixture.testbed.writeNode(FakeDevice.devnode(0), FakeDevice.frameS16(FakeDevice.raw("left-up")))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func aCombinedIMUReadThroughItsBufferHasTheGyroscopeInTheSameScan() throws {
        var gyroscope = ["in_anglvel_scale": "0.001"]
        for (index, axis) in ["x", "y", "z"].enumerated() {
            gyroscope["scan_elements/in_anglvel_\(axis)_en"] = "0"
            gyroscope["scan_elements/in_anglvel_\(axis)_index"] = String(3 + index)
            gyroscope["scan_elements/in_anglvel_\(axis)_type"] = "le:s16/16>>0"
        }
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer(timestamp: false, raw: FakeDevice.raw("normal"), extraAttributes: gyroscope))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("GyroscopeName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        #expect(fixture.testbed.attribute(FakeDevice.syspath(0), "scan_elements/in_anglvel_z_en")?.hasPrefix("1") == true)
        // Frames of x, y, z and the three rates (s16 each): turned to left-up, still.
        func frame(_ raw: (Int, Int, Int), _ rate: (Int, Int, Int)) -> [UInt8] {
            FakeDevice.frameS16(raw, timestamp: false) + FakeDevice.frameS16(rate, timestamp: false)
        }
        var bytes: [UInt8] = []
        for i in 0..<20 { bytes += frame(FakeDevice.raw("left-up"), (i % 2, 1 - i % 2, i % 3)) }
        try fixture.testbed.writeNode(FakeDevice.devnode(0), bytes)
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func aGyroscopeThatAppearsAfterTheAccelerometerIsPaired() throws {
        let fixture = try SensorDaemonFixture()
        let devices = Self.hub()
        try fixture.testbed.add(devices.accel)
        let peer = try fixture.start()
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("GyroscopeName") == .string(""))
        try fixture.testbed.add(devices.gyro)
        #expect(peer.waitUntil { (try? peer.managerProperty("GyroscopeName")) == .string("gyro_3d (iio:device1)") },
                "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("SensorName") == .string("accel_3d (iio:device0)"))
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
    }
}
