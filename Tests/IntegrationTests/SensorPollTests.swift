import DBus
import Glibc
import Posix
import Foundation
import Testing
import TestSupport

/// IIO polling end to end: attributes in a umockdev testbed → Orientation over D-Bus.
@Suite struct SensorPollTests {
    /// Starts a client and returns its path.
    static func startClient(_ peer: Peer) throws -> String {
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        return path
    }

    /// Rewrites the readings in place (same inodes), as real sysfs content changes: the
    /// daemon keeps the files open while polling. (SensorMalformedInputTests replaces a
    /// file with umockdev's set_attribute, which the daemon follows too.)
    static func setRaw(_ fixture: SensorDaemonFixture, _ syspath: String, _ raw: (Int, Int, Int)) throws {
        try fixture.testbed.rewriteAttribute(syspath, "in_accel_x_raw", String(raw.0))
        try fixture.testbed.rewriteAttribute(syspath, "in_accel_y_raw", String(raw.1))
        try fixture.testbed.rewriteAttribute(syspath, "in_accel_z_raw", String(raw.2))
    }

    static func waitForOrientation(_ peer: Peer, _ value: String, seconds: Double = 10) -> Bool {
        peer.waitUntil(seconds: seconds) { (try? peer.managerProperty("Orientation")) == .string(value) }
    }

    @Test func pollsAttributesIntoOrientation() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("HasSensor") == .bool(true))
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"))
        #expect(try peer.managerProperty("SensorName") == .string("accel_3d (iio:device0)"))
        #expect(try peer.managerProperty("Orientation") == .string("undefined"))
        _ = try Self.startClient(peer)
        // The fresh reading: Start returned with the current orientation.
        #expect(try peer.managerProperty("Orientation") == .string("normal"), "stderr:\n\(fixture.stderr)")
        for target in ["left-up", "bottom-up", "right-up", "normal"] {
            try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw(target))
            #expect(Self.waitForOrientation(peer, target), "no \(target); stderr:\n\(fixture.stderr)")
        }
        #expect(fixture.stderr.contains("iio-poll"))
    }

    /// A still device turned between two polls is announced at an extra reading soon after
    /// the poll that saw it (the engine asks for it), not at the next poll a whole interval
    /// later. With polls 2 s apart (and MaxIntervalMs above that, so that the sensor is
    /// not taken for a silent one between polls): the first turn aligns the polls with
    /// its announcement; the second, made just after it, is announced about 2 s later
    /// rather than 4.
    @Test func aTurnIsConfirmedByAnEarlyReadingNotTheNextPoll() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let config = fixture.bus.directory + "/slow-poll.conf"
        try "[Engine]\nMaxIntervalMs = 5000\n[Sensor]\nPollIntervalMs = 2000\n".write(toFile: config, atomically: true, encoding: .utf8)
        let peer = try fixture.start(extraArguments: ["--config", config])
        _ = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"), "stderr:\n\(fixture.stderr)")
        try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("right-up"))
        #expect(Self.waitForOrientation(peer, "right-up", seconds: 10), "stderr:\n\(fixture.stderr)")
        let turned = MonotonicClock.milliseconds()
        try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(Self.waitForOrientation(peer, "left-up", seconds: 10), "stderr:\n\(fixture.stderr)")
        let latency = MonotonicClock.milliseconds() - turned
        #expect(latency < 3000, "left-up announced \(latency) ms after right-up: it waited for a second poll")
    }

    /// umockdev's `set_attribute` (which GNOME's and KDE's CI use to fake sensors) writes a
    /// new file and renames it over the old one: the daemon, which keeps the files open,
    /// must see the new readings at its next poll, not after a periodic recheck. Each turn
    /// here is waited for far less than the once-a-second recheck this replaced.
    @Test func replacedAttributeFilesAreSeenAtTheNextPoll() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        _ = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"), "stderr:\n\(fixture.stderr)")
        for target in ["left-up", "bottom-up", "right-up", "normal", "left-up", "normal"] {
            let raw = FakeDevice.raw(target)
            for (axis, value) in zip(["x", "y", "z"], [raw.0, raw.1, raw.2]) {
                try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_\(axis)_raw", String(value))
            }
            #expect(Self.waitForOrientation(peer, target, seconds: 0.7), "no \(target) within 0.7 s; stderr:\n\(fixture.stderr)")
        }
    }

    /// Each poll reads each attribute once: a read is a system call (and on real sysfs a
    /// driver callback, often a bus transfer to the chip) on every tick of a started
    /// client (counted by `RawAttributeReads`). Twelve reads of x at one per 100 ms tick
    /// span eleven intervals; two per tick would take half that.
    @Test func eachTickReadsEachAttributeOnce() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        _ = try Self.startClient(peer)
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0))
        let xReads = reads.timesOfXReads(until: MonotonicClock.milliseconds() + 10_000) { $0.count >= 12 }
        try #require(xReads.count == 12, "\(xReads.count) reads of x in 10 s; stderr:\n\(fixture.stderr)")
        let span = xReads[11] - xReads[0]
        #expect(span >= 800, "12 reads of in_accel_x_raw within \(span) ms: more than one a 100 ms tick")
    }

    /// A rig that rewrites the attributes one by one (as sysfs never does, but as
    /// umockdev and these tests do) can be read between two of the writes: x already
    /// left-up, y still normal, a vector √2 g long. The daemon reads such a reading again
    /// at once (two reads of x a few ms apart, where ticks are 100 ms apart), instead of
    /// passing it on as a shock that holds the rotation; then the rotation completes.
    @Test func aReadingWhoseLengthJumpedIsReadAgainAtOnce() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        _ = try Self.startClient(peer)
        #expect(Self.waitForOrientation(peer, "normal"))
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0))
        // Half a rotation written: x is left-up's, y still normal's.
        try fixture.testbed.rewriteAttribute(FakeDevice.syspath(0), "in_accel_x_raw", "1000")
        func closePair(_ times: [Int64]) -> Bool { zip(times, times.dropFirst()).contains { $1 - $0 < 30 } }
        let xReads = reads.timesOfXReads(until: MonotonicClock.milliseconds() + 3_000, stop: closePair)
        #expect(closePair(xReads), "reads of x at \(xReads.map { $0 - (xReads.first ?? 0) }) ms: none read again at once; stderr:\n\(fixture.stderr)")
        try fixture.testbed.rewriteAttribute(FakeDevice.syspath(0), "in_accel_y_raw", "0")
        #expect(Self.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    /// A sensor that goes on returning absurd readings, each different from the last (a
    /// broken part, a register read mid-update): one warning for the whole run, not one a
    /// reading; and when good readings come back, one line with how many were dropped.
    @Test func aRunOfDifferentBadReadingsIsOneWarning() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0))
        for k in 0..<5 {
            try fixture.testbed.rewriteAttribute(FakeDevice.syspath(0), "in_accel_x_raw", String(1_000_000_000_000 + k))
            // Twice read after the write: the second read is of this value, whatever the
            // tick was doing when it was written.
            let xReads = reads.timesOfXReads(until: MonotonicClock.milliseconds() + 5_000) { $0.count >= 2 }
            try #require(xReads.count >= 2, "x not read; stderr:\n\(fixture.stderr)")
        }
        #expect(fixture.stderr.components(separatedBy: "is out of range").count == 2, "stderr:\n\(fixture.stderr)")
        try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(Self.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.logContains("readings usable again after"), "stderr:\n\(fixture.stderr)")
        let line = fixture.stderr.split(separator: "\n").first { $0.contains("readings usable again after") } ?? ""
        let dropped = Int(line.split(separator: " ").dropLast().last ?? "") ?? 0
        #expect(dropped >= 5, "\(line)")
        #expect(fixture.stderr.components(separatedBy: "is out of range").count == 2, "stderr:\n\(fixture.stderr)")
    }

    /// iio-sensor-proxy's own tests write readings with a decimal point.
    @Test func decimalReadingsAreNumbers() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal"), scale: "0.1"))
        for (x, y, target) in [("0", "-98.1", "normal"), ("-98.1", "0.0", "right-up"), ("25.6", "-0.5", "left-up")] {
            try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_x_raw", x)
            try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_y_raw", y)
            try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_z_raw", "0")
            #expect(Self.waitForOrientation(peer, target), "no \(target); stderr:\n\(fixture.stderr)")
        }
        #expect(!fixture.stderr.contains("is not a number"), "stderr:\n\(fixture.stderr)")
    }

    @Test func attributesAloneMakeACandidate() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(type: nil, raw: FakeDevice.raw("left-up")))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"))
        _ = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }

    @Test func sensorProxyTypeIsHonoured() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(type: nil, raw: FakeDevice.raw("right-up"),
                                                   extraProperties: ["IIO_SENSOR_PROXY_TYPE": "iio-poll-light iio-poll-accel"]))
        let peer = try fixture.start()
        _ = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("right-up"))
    }

    /// Per-axis scales and offsets: only the right calibration reads as bottom-up
    /// (x = (5 - 5)·0.1 = 0, y = (100 + 0)·0.0981 = +9.81, z = (-3 + 3)·1 = 0).
    @Test func perAxisScaleAndOffset() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: (5, 100, -3), scale: "7", extraAttributes: [
            "in_accel_x_scale": "0.1", "in_accel_y_scale": "0.0981", "in_accel_z_scale": "1",
            "in_accel_x_offset": "-5", "in_accel_z_offset": "3",
        ]))
        #expect(try peer.managerProperty("Orientation") == .string("bottom-up"), "stderr:\n\(fixture.stderr)")
    }

    /// A scale off by the powers of ten drivers get wrong (milli-g taken for g: 9,800
    /// m/s² at rest; or a thousand times too small): the readings still reach the engine,
    /// which learns the sensor's own 1 g, follows every turn, and says once that the scale
    /// looks wrong. (With readings beyond 1,000 m/s² dropped, the first sensor gave no
    /// orientation at all.)
    @Test(arguments: ["9.80665", "0.00000980665"])
    func aScaleOffByAPowerOfTenStillGivesTheOrientation(scale: String) throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal"), scale: scale))
        #expect(Self.waitForOrientation(peer, "normal"), "stderr:\n\(fixture.stderr)")
        for target in ["left-up", "bottom-up", "right-up"] {
            try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw(target))
            #expect(Self.waitForOrientation(peer, target), "no \(target); stderr:\n\(fixture.stderr)")
        }
        #expect(fixture.logContains("sensor scale looks wrong"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.components(separatedBy: "sensor scale looks wrong").count == 2, "stderr:\n\(fixture.stderr)")
        #expect(!fixture.stderr.contains("out of range"), "stderr:\n\(fixture.stderr)")
    }

    /// A shared offset with a shared scale: (raw + offset) × scale.
    @Test func sharedOffset() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: (1500, 500, 500), scale: "0.00980665",
                                                   extraAttributes: ["in_accel_offset": "-500"]))
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func mountMatrixFromUdevProperty() throws {
        // Sensor mounted upside down: it reads "normal", the device is bottom-up.
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal"),
                                                   extraProperties: ["ACCEL_MOUNT_MATRIX": "-1, 0, 0; 0, -1, 0; 0, 0, 1"]))
        #expect(try peer.managerProperty("Orientation") == .string("bottom-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test(arguments: ["mount_matrix", "in_accel_mount_matrix", "in_mount_matrix"])
    func mountMatrixFromSysfs(attribute: String) throws {
        // Rotated a quarter turn: sensor y maps to device x.
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("bottom-up"),
                                                   extraAttributes: [attribute: "0, 1, 0; 1, 0, 0; 0, 0, 1"]))
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func malformedMatrixWarnsAndUsesIdentity() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal"),
                                                   extraProperties: ["ACCEL_MOUNT_MATRIX": "1, 0; 0, 1"]))
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        #expect(fixture.stderr.contains("malformed ACCEL_MOUNT_MATRIX"))
        #expect(fixture.stderr.contains("accel_3d (iio:device0)"))
    }

    @Test(arguments: [
        ("1 5 10 25 50", "10"), ("0.78 1.56 3.12 6.25 12.5 25", "12.5"), ("200 100 50 25 12.500000 6.25", "12.5"), ("5.000000 10.000000 20.000000", "10"),
        ("1 2 5", "5"),
    ])
    func samplingFrequencyChoice(available: String, expected: String) throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(extraAttributes: ["sampling_frequency": "100", "sampling_frequency_available": available]))
        _ = try fixture.start()
        #expect(fixture.testbed.attribute(FakeDevice.syspath(0), "sampling_frequency") == expected)
    }

    /// Polled every 40 ms (the gyroscope's integration), the sensor is set to at least
    /// 25 Hz: at 10 Hz, two polls in three read the sample the one before read.
    @Test func aFasterPollAsksForAFasterSensor() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(extraAttributes: ["sampling_frequency": "100", "sampling_frequency_available": "10 20 50 100"]))
        let config = fixture.bus.directory + "/fast-poll.conf"
        try "[Sensor]\nPollIntervalMs = 40\n".write(toFile: config, atomically: true, encoding: .utf8)
        _ = try fixture.start(extraArguments: ["--config", config])
        #expect(fixture.testbed.attribute(FakeDevice.syspath(0), "sampling_frequency") == "50", "stderr:\n\(fixture.stderr)")
    }

    @Test func samplingFrequencyWithoutListIsTen() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(extraAttributes: ["sampling_frequency": "100"]))
        _ = try fixture.start()
        #expect(fixture.testbed.attribute(FakeDevice.syspath(0), "sampling_frequency") == "10")
    }

    @Test func baseAccelerometerIsSkipped() throws {
        let fixture = try SensorDaemonFixture()
        // The base sorts first and is by property; a second base by label; the display last.
        try fixture.testbed.add(FakeDevice.iioPoll(number: 0, name: "base_accel", raw: FakeDevice.raw("bottom-up"),
                                                   extraProperties: ["ACCEL_LOCATION": "base"]))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 1, name: "base_label", raw: FakeDevice.raw("bottom-up"),
                                                   extraAttributes: ["label": "accel-base"]))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 2, name: "display_accel", raw: FakeDevice.raw("left-up"),
                                                   extraProperties: ["ACCEL_LOCATION": "display"]))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorName") == .string("display_accel (iio:device2)"), "stderr:\n\(fixture.stderr)")
        _ = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        #expect(fixture.stderr.contains("skipped: located in the base (ACCEL_LOCATION=base)"))
        #expect(fixture.stderr.contains("skipped: located in the base (label accel-base)"))
    }

    /// A base accelerometer is said once when it appears, not again at every uevent
    /// (convertibles send many), and again only if it is removed and comes back.
    @Test func skippedDeviceIsLoggedOnce() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(number: 0, name: "base_accel", extraProperties: ["ACCEL_LOCATION": "base"]))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 1, name: "display_accel"))
        _ = try fixture.start()
        let skipped = "base_accel (iio:device0): skipped"
        #expect(fixture.logContains(skipped), "stderr:\n\(fixture.stderr)")
        for round in 1...5 {
            try fixture.testbed.uevent(FakeDevice.syspath(0), "change")
            try fixture.testbed.uevent(FakeDevice.syspath(1), "change")
            // Verbose: each uevent is logged as it is handled.
            #expect(waitUntil(seconds: 10) {
                fixture.stderr.components(separatedBy: "uevent change \(FakeDevice.syspath(1))").count == round + 1
            }, "stderr:\n\(fixture.stderr)")
        }
        #expect(fixture.stderr.components(separatedBy: skipped).count == 2, "stderr:\n\(fixture.stderr)")
        try fixture.testbed.remove(FakeDevice.syspath(0))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 0, name: "base_accel", extraProperties: ["ACCEL_LOCATION": "base"]))
        #expect(waitUntil(seconds: 10) { fixture.stderr.components(separatedBy: skipped).count == 3 }, "stderr:\n\(fixture.stderr)")
    }

    /// The gyroscope of a combined IMU is read at the accelerometer's ticks while a client
    /// is started, and not at all otherwise (no client yet, or the last one stopped).
    @Test func theGyroscopeIsReadOnlyWhileAClientIsStarted() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(SensorGyroscopeTests.imu())
        let peer = try fixture.start()
        #expect(try peer.managerProperty("GyroscopeName") == .string("accel_3d (iio:device0)"), "stderr:\n\(fixture.stderr)")
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0), channel: "anglvel")
        // Five poll intervals with no client: not one read.
        #expect(reads.timesOfXReads(until: MonotonicClock.milliseconds() + 500) { !$0.isEmpty }.isEmpty)
        let client = try Self.startClient(peer)
        let started = reads.timesOfXReads(until: MonotonicClock.milliseconds() + 5_000) { $0.count >= 3 }
        #expect(started.count >= 3, "\(started.count) reads of in_anglvel_x_raw while started; stderr:\n\(fixture.stderr)")
        try peer.call(client, Peer.clientInterface, "Stop")
        reads.drain()
        #expect(reads.timesOfXReads(until: MonotonicClock.milliseconds() + 500) { !$0.isEmpty }.isEmpty)
    }

    @Test func noReadsWhileNoClientIsStarted() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        let path = try Self.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        let reads = try RawAttributeReads(directory: fixture.testbed.rootDirectory + FakeDevice.syspath(0))
        try peer.call(path, Peer.clientInterface, "Stop")
        reads.drain()
        // Stopped: a change is not read (not in five poll intervals), Orientation keeps its value.
        try Self.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(reads.timesOfXReads(until: MonotonicClock.milliseconds() + 500) { !$0.isEmpty }.isEmpty)
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        // Started again: the fresh reading is there when Start returns.
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }
}
