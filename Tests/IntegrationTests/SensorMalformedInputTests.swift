import DBus
import Foundation
import Testing
import TestSupport

/// Malformed kernel data never crashes the daemon: each is logged clearly, and the
/// sample is dropped or the sensor skipped.
@Suite struct SensorMalformedInputTests {
    /// Raw readings that are not numbers, not finite or absurdly large: each sample is
    /// dropped with a log line, the orientation stays, good readings work afterwards.
    @Test func malformedRawReadingsAreDropped() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        let cases: [(String, String)] = [
            ("garbage", "in_accel_x_raw \"garbage\" is not a number"),
            ("", "in_accel_x_raw \"\" is not a number"),
            ("nan", "in_accel_x_raw \"nan\" is not a number"),
            ("inf", "in_accel_x_raw \"inf\" is not a number"),
            ("-inf", "in_accel_x_raw \"-inf\" is not a number"),
            ("1e400", "in_accel_x_raw \"1e400\" is not a number"),
            ("99999999999999999999", "in_accel_x_raw \"99999999999999999999\" is not a number"),
            ("12abc", "in_accel_x_raw \"12abc\" is not a number"),
            ("0x3e8", "in_accel_x_raw \"0x3e8\" is not a number"),
            ("1,5", "in_accel_x_raw \"1,5\" is not a number"),
            ("1e12", "is out of range: sample dropped"),
        ]
        func recoveries() -> Int { fixture.stderr.components(separatedBy: "readings usable again after").count - 1 }
        for (index, (text, expected)) in cases.enumerated() {
            try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_x_raw", text)
            #expect(fixture.logContains(expected), "no log for \"\(text)\"; stderr:\n\(fixture.stderr)")
            #expect(try peer.managerProperty("Orientation") == .string("normal"))
            #expect(fixture.isRunning)
            // A good reading ends the run of dropped ones, and says so: the next bad
            // value, even of the same kind, is news again.
            try fixture.testbed.setAttribute(FakeDevice.syspath(0), "in_accel_x_raw", "0")
            #expect(waitUntil(seconds: 10) { recoveries() == index + 1 }, "stderr:\n\(fixture.stderr)")
        }
        try SensorPollTests.setRaw(fixture, FakeDevice.syspath(0), FakeDevice.raw("left-up"))
        #expect(SensorPollTests.waitForOrientation(peer, "left-up"), "stderr:\n\(fixture.stderr)")
    }

    /// Devices whose calibration is unusable are skipped (logged), the good one is used.
    @Test func unusableCalibrationSkipsTheSensor() throws {
        let fixture = try SensorDaemonFixture()
        let bad: [(String?, [String: String], String)] = [
            ("0", [:], "in_accel_scale is 0: a scale must be positive"),
            ("-0.0098", [:], "in_accel_scale is -0.0098: a scale must be positive"),
            ("abc", [:], "in_accel_scale \"abc\" is not a number"),
            ("inf", [:], "in_accel_scale \"inf\" is not a number"),
            ("0.0098", ["in_accel_offset": "nan"], "in_accel_offset \"nan\" is not a number"),
            ("0.0098", ["in_accel_y_scale": ""], "in_accel_y_scale \"\" is not a number"),
        ]
        for (number, entry) in bad.enumerated() {
            try fixture.testbed.add(FakeDevice.iioPoll(number: number, name: "bad\(number)", raw: FakeDevice.raw("bottom-up"),
                                                       scale: entry.0, extraAttributes: entry.1))
        }
        try fixture.testbed.add(FakeDevice.iioPoll(number: 9, name: "good", raw: FakeDevice.raw("left-up")))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorName") == .string("good (iio:device9)"), "stderr:\n\(fixture.stderr)")
        for (number, entry) in bad.enumerated() {
            #expect(fixture.stderr.contains("bad\(number) (iio:device\(number)): \(entry.2): iio-poll not used"),
                    "no log for \(entry.2); stderr:\n\(fixture.stderr)")
        }
        _ = try SensorPollTests.startClient(peer)
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }

    @Test func missingAxisSkipsTheSensor() throws {
        let fixture = try SensorDaemonFixture()
        var text = FakeDevice.iioPoll(number: 0, name: "noz", raw: FakeDevice.raw("bottom-up"))
        text = text.split(separator: "\n").filter { !$0.hasPrefix("A: in_accel_z_raw") }.joined(separator: "\n") + "\n"
        try fixture.testbed.add(text)
        let peer = try fixture.start()
        #expect(try peer.managerProperty("HasSensor") == .bool(false))
        #expect(fixture.stderr.contains("in_accel_z_raw is missing"))
    }

    /// Buffers with impossible scan elements are not used; without raw attributes the
    /// device cannot be polled either, so the next device is taken.
    @Test func badScanElementsSkipTheBuffer() throws {
        let fixture = try SensorDaemonFixture()
        let bad: [(String, String)] = [
            ("le:s16/8>>0", "scan_elements/in_accel_x_type \"le:s16/8>>0\" is not a scan type"),
            ("be:s12/16>>8", "scan_elements/in_accel_x_type \"be:s12/16>>8\" is not a scan type"),
            ("", "scan_elements/in_accel_x_type \"\" is not a scan type"),
            ("le:s16/16X0>>0", "scan_elements/in_accel_x_type \"le:s16/16X0>>0\" is not a scan type"),
        ]
        for (number, entry) in bad.enumerated() {
            try fixture.testbed.add(FakeDevice.iioBuffer(number: number, name: "bad\(number)", scanType: entry.0))
        }
        var broken = FakeDevice.iioBuffer(number: 5, name: "badindex")
        broken = broken.replacingOccurrences(of: "in_accel_y_index=1", with: "in_accel_y_index=-1")
        try fixture.testbed.add(broken)
        try fixture.testbed.add(FakeDevice.iioBuffer(number: 8, name: "good"))
        let peer = try fixture.start()
        #expect(try peer.managerProperty("SensorName") == .string("good (iio:device8)"), "stderr:\n\(fixture.stderr)")
        for entry in bad {
            #expect(fixture.stderr.contains(entry.1), "no log for \(entry.0); stderr:\n\(fixture.stderr)")
        }
        #expect(fixture.stderr.contains("scan_elements/in_accel_y_index \"-1\" is not an index"))
        _ = try SensorPollTests.startClient(peer)
        #expect(try SensorBufferTests.stream(fixture, peer, node: FakeDevice.devnode(8), FakeDevice.frameS16(FakeDevice.raw("left-up")),
                                             until: "left-up"), "stderr:\n\(fixture.stderr)")
    }

    @Test func malformedSysfsMatrixWarnsAndUsesIdentity() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up"),
                                                   extraAttributes: ["mount_matrix": "nan, 0, 0; 0, 1, 0; 0, 0, 1"]))
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        #expect(fixture.stderr.contains("accel_3d (iio:device0): malformed mount_matrix \"nan, 0, 0; 0, 1, 0; 0, 0, 1\": using the identity"))
    }

    /// A reading file that disappears while being polled: logged, the sensor dropped.
    @Test func vanishingAttributeDropsTheSensor() throws {
        let (fixture, peer) = try SensorDaemonFixture.reading(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up")))
        try FileManager.default.removeItem(atPath: fixture.testbed.rootDirectory + FakeDevice.syspath(0) + "/in_accel_y_raw")
        #expect(peer.waitUntil { (try? peer.managerProperty("HasSensor")) == .bool(false) }, "stderr:\n\(fixture.stderr)")
        #expect(fixture.stderr.contains("device vanished (in_accel_y_raw"))
        #expect(try peer.managerProperty("Orientation") == .string("undefined"))
        #expect(fixture.isRunning)
    }
}
