@_spi(Testing) import DBus
import Foundation
import Testing
import TestSupport

/// udev add, change and remove while a client is started.
@Suite struct SensorHotplugTests {
    static func property(_ peer: Peer, _ name: String) -> Value? { try? peer.managerProperty(name) }

    @Test func sensorAppearingIsUsedAtOnce() throws {
        let fixture = try SensorDaemonFixture()
        let peer = try fixture.start()
        #expect(Self.property(peer, "HasSensor") == .bool(false))
        #expect(Self.property(peer, "SensorBackend") == .string(""))
        _ = try SensorPollTests.startClient(peer)
        #expect(Self.property(peer, "Orientation") == .string("undefined"))
        peer.clearSignals()

        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up")))
        #expect(peer.waitUntil { Self.property(peer, "HasSensor") == .bool(true) }, "stderr:\n\(fixture.stderr)")
        #expect(Self.property(peer, "SensorName") == .string("accel_3d (iio:device0)"))
        #expect(Self.property(peer, "SensorBackend") == .string("iio-poll"))
        #expect(Self.property(peer, "SensorDevice") == .string("iio:device0"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
        peer.connection.dispatchQueued()
        let changed = peer.signalSummaries(path: Peer.manager)
        #expect(changed.contains { $0.contains("HasSensor=true") && $0.contains("SensorBackend=iio-poll") && $0.contains("SensorDevice=iio:device0") },
                "\(changed)")
    }

    @Test func changeUeventRereadsTheMountMatrix() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        #expect(Self.property(peer, "Orientation") == .string("normal"))
        // An hwdb fix: the sensor is mounted upside down.
        try fixture.testbed.setProperty(FakeDevice.syspath(0), "ACCEL_MOUNT_MATRIX", "-1, 0, 0; 0, -1, 0; 0, 0, 1")
        try fixture.testbed.uevent(FakeDevice.syspath(0), "change")
        #expect(SensorPollTests.waitForOrientation(peer, "bottom-up"), "stderr:\n\(fixture.stderr)")
        #expect(Self.property(peer, "HasSensor") == .bool(true))
    }

    @Test func removalMakesOrientationUndefined() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up")))
        let peer = try fixture.start()
        let client = try SensorPollTests.startClient(peer)
        #expect(Self.property(peer, "Orientation") == .string("left-up"))
        try fixture.testbed.remove(FakeDevice.syspath(0))
        #expect(peer.waitUntil { Self.property(peer, "HasSensor") == .bool(false) }, "stderr:\n\(fixture.stderr)")
        #expect(Self.property(peer, "Orientation") == .string("undefined"))
        #expect(Self.property(peer, "SensorName") == .string(""))
        #expect(Self.property(peer, "SensorBackend") == .string(""))
        #expect(try peer.get(client, Peer.clientInterface, "DeviceOrientation") == .string("undefined"))
        #expect(fixture.isRunning)

        // Plugged in again: used at once, the client still started.
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("right-up")))
        #expect(SensorPollTests.waitForOrientation(peer, "right-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func removalFallsBackToTheRemainingSensor() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(number: 0, name: "first", raw: FakeDevice.raw("left-up")))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 1, name: "second", raw: FakeDevice.raw("bottom-up")))
        let peer = try fixture.start()
        #expect(Self.property(peer, "SensorName") == .string("first (iio:device0)"))
        _ = try SensorPollTests.startClient(peer)
        #expect(Self.property(peer, "Orientation") == .string("left-up"))
        try fixture.testbed.remove(FakeDevice.syspath(0))
        #expect(peer.waitUntil { Self.property(peer, "SensorName") == .string("second (iio:device1)") }, "stderr:\n\(fixture.stderr)")
        #expect(SensorPollTests.waitForOrientation(peer, "bottom-up"))
        #expect(Self.property(peer, "HasSensor") == .bool(true))
    }

    @Test func betterSensorAppearingTakesOver() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(number: 1, name: "later", raw: FakeDevice.raw("bottom-up")))
        #expect(Self.property(peer, "Orientation") == .string("bottom-up"))
        try fixture.testbed.add(FakeDevice.iioPoll(number: 0, name: "earlier", raw: FakeDevice.raw("left-up")))
        #expect(peer.waitUntil { Self.property(peer, "SensorName") == .string("earlier (iio:device0)") }, "stderr:\n\(fixture.stderr)")
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"))
    }
}
