@_spi(Testing) import DBus
import Foundation
import Testing
import TestSupport

/// IIO buffers end to end: frames written into /dev/iio:deviceN → Orientation.
@Suite struct SensorBufferTests {
    static let syspath = FakeDevice.syspath(0)
    static let node = FakeDevice.devnode(0)

    /// Streams `frame` into the device node, as a running buffer does (a frame every
    /// 20 ms), until Orientation is `target` or the deadline passes.
    static func stream(_ fixture: SensorDaemonFixture, _ peer: Peer, node: String = node, _ frame: [UInt8],
                       until target: String, seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            try fixture.testbed.writeNode(node, frame)
            if peer.waitUntil(seconds: 0.02, { (try? peer.managerProperty("Orientation")) == .string(target) }) { return true }
        }
        return false
    }

    @Test func framesBecomeOrientationAndTheBufferIsOnOnlyWhileStarted() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer())
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "0")
        #expect(fixture.testbed.attribute(Self.syspath, "scan_elements/in_accel_y_en") == "1")
        #expect(fixture.testbed.attribute(Self.syspath, "scan_elements/in_timestamp_en") == "1")

        let client = try SensorPollTests.startClient(peer)
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "1")
        for target in ["left-up", "bottom-up", "right-up", "normal"] {
            #expect(try Self.stream(fixture, peer, FakeDevice.frameS16(FakeDevice.raw(target)), until: target),
                    "no \(target); stderr:\n\(fixture.stderr)")
        }
        try peer.call(client, Peer.clientInterface, "Stop")
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "0")
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "1")
        try peer.call(client, Peer.clientInterface, "Close")
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "0")
    }

    /// Big-endian 12-bit values in 16 bits, shifted by 4, no timestamp.
    @Test func bigEndianShiftedFrames() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer(scanType: "be:s12/16>>4", timestamp: false, scale: "0.0098"))
        func frame(_ x: Int, _ y: Int, _ z: Int) -> [UInt8] {
            [x, y, z].flatMap { value -> [UInt8] in
                let v = UInt16(bitPattern: Int16(value)) << 4
                return [UInt8(v >> 8), UInt8(v & 0xff)]
            }
        }
        #expect(try Self.stream(fixture, peer, frame(-1000, 0, 0), until: "right-up"), "stderr:\n\(fixture.stderr)")
        #expect(try Self.stream(fixture, peer, frame(0, 1000, 0), until: "bottom-up"), "stderr:\n\(fixture.stderr)")
    }

    /// A buffer is set to the same rate as a polled sensor configured alike: 10 Hz at
    /// least by default, the configured poll's rate when that is faster.
    @Test(arguments: [(nil, "10"), ("40", "50")])
    func theBuffersRateFollowsThePollInterval(pollIntervalMs: String?, expected: String) throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer(extraAttributes: ["sampling_frequency": "100", "sampling_frequency_available": "10 20 50 100"]))
        var arguments: [String] = []
        if let pollIntervalMs {
            let config = fixture.bus.directory + "/poll.conf"
            try "[Sensor]\nPollIntervalMs = \(pollIntervalMs)\n".write(toFile: config, atomically: true, encoding: .utf8)
            arguments = ["--config", config]
        }
        let peer = try fixture.start(extraArguments: arguments)
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"), "stderr:\n\(fixture.stderr)")
        #expect(fixture.testbed.attribute(Self.syspath, "sampling_frequency") == expected, "stderr:\n\(fixture.stderr)")
    }

    /// Frames of a sensor whose scale is a thousand times too large (9,800 m/s² at rest)
    /// are readings all the same: the engine learns its 1 g.
    @Test func framesOfAScaleAThousandTimesTooLargeGiveTheOrientation() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer(scale: "9.80665"))
        for target in ["left-up", "bottom-up"] {
            #expect(try Self.stream(fixture, peer, FakeDevice.frameS16(FakeDevice.raw(target)), until: target),
                    "no \(target); stderr:\n\(fixture.stderr)")
        }
        #expect(!fixture.stderr.contains("out of range"), "stderr:\n\(fixture.stderr)")
    }

    @Test func startReturnsWithAFreshReadingFromTheAttributes() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer(raw: FakeDevice.raw("left-up")))
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        withExtendedLifetime(fixture) {}
    }

    /// Without raw attributes the first reading is the first frame: Start's reply waits
    /// for it (the loop never blocks), and returns anyway when none comes.
    @Test func startWithoutAttributesWaitsForTheFirstFrameOrTheTimeout() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer())
        let peer = try fixture.start()
        try fixture.testbed.writeNode(Self.node, FakeDevice.frameS16(FakeDevice.raw("left-up")))
        let first = try peer.createClient()
        let reply = try peer.connection.call(try Message.methodCall(destination: Peer.service, path: first, interface: Peer.clientInterface,
                                                                    member: "Start"), timeoutMs: 10_000)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(fixture.stderr)")
        // The daemon sent the orientation's PropertiesChanged before the reply to Start.
        peer.connection.dispatchQueued()
        let changed = peer.signals.first { $0.member == "PropertiesChanged" && peer.summary($0).contains("Orientation=left-up") }
        #expect(changed != nil && changed!.serial < reply.serial, "\(peer.signalSummaries())")
        // No frame at all: Start still returns, with the orientation not yet known.
        let second = try SensorDaemonFixture()
        try second.testbed.add(FakeDevice.iioBuffer())
        let quiet = try second.start()
        _ = try SensorPollTests.startClient(quiet)
        #expect(try quiet.managerProperty("Orientation") == .string("undefined"))
        #expect(try quiet.managerProperty("HasSensor") == .bool(true))
    }

    @Test func brokenScanTypeFallsBackToPolling() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer(type: "iio-buffer-accel iio-poll-accel", scanType: "le:q16/16>>0",
                                                     raw: FakeDevice.raw("bottom-up")))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-poll"))
        #expect(fixture.stderr.contains("is not a scan type: cannot use the buffer, falling back to polling"))
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("bottom-up"))
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "0")
    }

    @Test func silentBufferFallsBackToPolling() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioBuffer(raw: FakeDevice.raw("left-up")))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"))
        _ = try SensorPollTests.startClient(peer)
        // No frame ever comes: after the silence limit the same device is polled.
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("SensorBackend")) == .string("iio-poll") },
                "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.contains("no usable frame within"))
        #expect(fixture.testbed.attribute(Self.syspath, "buffer/enable") == "0")
        try SensorPollTests.setRaw(fixture, Self.syspath, FakeDevice.raw("right-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "right-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func truncatedFramesAreDroppedAndLaterFramesStillCount() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer())
        try fixture.testbed.writeNode(Self.node, Array(FakeDevice.frameS16(FakeDevice.raw("left-up")).prefix(5)))
        #expect(fixture.logContains("truncated frame (5 of 16 bytes): dropped"), "stderr:\n\(fixture.stderr)")
        #expect(try Self.stream(fixture, peer, FakeDevice.frameS16(FakeDevice.raw("right-up")), until: "right-up"),
                "stderr:\n\(fixture.stderr)")
        #expect(fixture.isRunning)
    }

    @Test func deviceVanishingWhileStarted() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer())
        try fixture.testbed.writeNode(Self.node, FakeDevice.frameS16(FakeDevice.raw("left-up")))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"))
        try fixture.testbed.remove(Self.syspath)
        #expect(peer.waitUntil { (try? peer.managerProperty("HasSensor")) == .bool(false) }, "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("undefined"))
        #expect(fixture.isRunning)
    }
}
