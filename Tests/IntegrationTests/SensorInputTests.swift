import DBus
import Foundation
import Testing
import TestSupport

/// evdev accelerometers end to end: input events written into /dev/input/eventN.
@Suite struct SensorInputTests {
    @Test func eventsWithResolutionFromEVIOCGABS() throws {
        // 256 units per g; the current values say left-up.
        let (fixture, peer) = try SensorDaemonFixture.evdev(values: (256, 0, 0), resolution: 256)
        #expect(try peer.managerProperty("SensorBackend") == .string("input"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("SensorName") == .string("Fake Accelerometer (event0)"))
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(fixture.stderr)")
        #expect(try SensorBufferTests.stream(fixture, peer, node: FakeDevice.eventNode, FakeDevice.inputFrame(0, 256, 0), until: "bottom-up"),
                "stderr:\n\(fixture.stderr)")
        // At 256 units per g, 1000 mg-like units would be 3.9 g: still a direction, but
        // the magnitude check of the engine would reject it; 256 reads as 1 g.
        #expect(try SensorBufferTests.stream(fixture, peer, node: FakeDevice.eventNode, FakeDevice.inputFrame(-256, 0, 0), until: "right-up"),
                "stderr:\n\(fixture.stderr)")
    }

    @Test func withoutResolutionReadingsAreMilliG() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.inputParent(name: "lis3lv02d"))
        try fixture.testbed.add(FakeDevice.inputEvent(typed: true, extraProperties: ["ACCEL_MOUNT_MATRIX": "-1, 0, 0; 0, -1, 0; 0, 0, 1"]))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorBackend") == .string("input"), "stderr:\n\(fixture.stderr)")
        _ = try SensorPollTests.startClient(peer)
        #expect(fixture.stderr.contains("taking readings as milli-g"))
        // The matrix turns the sensor's "normal" reading into bottom-up.
        #expect(try SensorBufferTests.stream(fixture, peer, node: FakeDevice.eventNode, FakeDevice.inputFrame(0, -1000, 0), until: "bottom-up"),
                "stderr:\n\(fixture.stderr)")
    }

    @Test func partialEventsAndHugeValuesAreDropped() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.inputParent())
        try fixture.testbed.add(FakeDevice.inputEvent())
        let peer = try fixture.start()
        _ = try SensorPollTests.startClient(peer)
        #expect(try SensorBufferTests.stream(fixture, peer, node: FakeDevice.eventNode, FakeDevice.inputFrame(1000, 0, 0), until: "left-up"))
        try fixture.testbed.writeNode(FakeDevice.eventNode, Array(FakeDevice.inputEvent(3, 0, 5).prefix(10)))
        #expect(fixture.logContains("10 trailing bytes do not make an input event: dropped"), "stderr:\n\(fixture.stderr)")
        try fixture.testbed.writeNode(FakeDevice.eventNode, FakeDevice.inputFrame(Int32.max, 0, 0))
        #expect(fixture.logContains("is out of range: dropped"), "stderr:\n\(fixture.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        #expect(fixture.isRunning)
    }

    @Test func inputNodeWithoutAccelerometerMarkIsIgnored() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add("P: /devices/platform/kbd/input/input1\nE: SUBSYSTEM=input\nA: name=Keyboard\nA: properties=0\n")
        try fixture.testbed.add("P: /devices/platform/kbd/input/input1/event1\nN: input/event1\nE: SUBSYSTEM=input\nE: ID_INPUT_KEYBOARD=1\n")
        let peer = try fixture.start()
        #expect(try peer.managerProperty("HasSensor") == .bool(false))
    }
}
