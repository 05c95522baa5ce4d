import DBus
import Foundation
import Testing
import TestSupport

/// Event-driven sensors fall silent while the device is still: the kernel's input core
/// drops repeated values, and IIO buffers on on-change or motion triggers send nothing new.
/// A turn seen as one burst must still complete, from the daemon's settle timer alone.
@Suite struct SensorSilenceTests {
    @Test func evdevBurstThenSilenceStillTurns() throws {
        // 256 units per g; the device lies still in left-up when the client starts.
        let (fixture, peer) = try SensorDaemonFixture.evdev(values: (256, 0, 0), resolution: 256)
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(fixture.stderr)")
        // Turned a quarter to normal: one burst of events, then nothing at all.
        try fixture.testbed.writeNode(FakeDevice.eventNode, FakeDevice.inputFrame(100, -180, 0) + FakeDevice.inputFrame(0, -256, 0))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("normal") },
                "a silent sensor never settled; stderr:\n\(fixture.stderr)")
    }

    @Test func bufferOneFrameThenSilenceStillTurns() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioBuffer())
        try fixture.testbed.writeNode(SensorBufferTests.node, FakeDevice.frameS16(FakeDevice.raw("normal")))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("normal") },
                "stderr:\n\(fixture.stderr)")
        // One frame in the new orientation, then the trigger stays quiet.
        try fixture.testbed.writeNode(SensorBufferTests.node, FakeDevice.frameS16(FakeDevice.raw("right-up")))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("right-up") },
                "a silent buffer never settled; stderr:\n\(fixture.stderr)")
    }

    @Test func wrongScaleIsLoggedOnceAndStillTurns() throws {
        // iio-sensor-proxy's own test: raw -256000000 at scale 0.000001, about 26 g at rest.
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: (0, -256_000_000, 0), scale: "0.000001"))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("normal") },
                "stderr:\n\(fixture.stderr)")
        #expect(fixture.logContains("sensor scale looks wrong: gravity reads 256 m/s^2"), "stderr:\n\(fixture.stderr)")
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), (-256_000_000, 0, 0))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("right-up") },
                "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.components(separatedBy: "sensor scale looks wrong").count == 2, "logged once")
    }

    @Test func aSteadyReadingOfAnotherLengthIsTheNewGravity() throws {
        // iio-sensor-proxy's test_iio_poll_accel goes on from 26 g to a steady reading three
        // times as long (x −256, z 724 m/s^2: 70.5° above the horizon): face-up, once the
        // daemon has seen that it stays (the learned 1 g re-learned, not every reading
        // taken for linear acceleration).
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: (0, -256_000_000, 0), scale: "0.000001"))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Tilt")) == .string("vertical") },
                "stderr:\n\(fixture.stderr)")
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), (-256_000_000, 0, 724_000_000))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Tilt")) == .string("face-up") },
                "stderr:\n\(fixture.stderr)")
    }
}
