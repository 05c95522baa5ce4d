import Sensors
import Testing

@Suite struct SysfsNumberTests {
    @Test(arguments: [
        ("12", 12.0), ("-12", -12.0), ("+3", 3.0), ("0.009576806\n", 0.009576806), ("  1.5  ", 1.5),
        ("1e-3", 0.001), ("2.5E2", 250.0), ("-0", 0.0), ("0000012", 12.0), (".5", 0.5), ("5.", 5.0),
    ])
    func parsesDecimals(text: String, expected: Double) {
        #expect(SysfsNumber.parseDouble(text) == expected)
    }

    @Test(arguments: ["", " ", "\n", "abc", "1,5", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e", "1e+",
                      "12abc", "1.2.3", "--1", "+", ".", "1e400", "1e16", "99999999999999999999", "1 2", "\u{0}"])
    func rejectsGarbage(text: String) {
        #expect(SysfsNumber.parseDouble(text) == nil)
    }

    @Test func integers() {
        #expect(SysfsNumber.parseInt("42\n") == 42)
        #expect(SysfsNumber.parseInt("-7") == -7)
        #expect(SysfsNumber.parseInt("9223372036854775808") == nil)
        #expect(SysfsNumber.parseInt("1.0") == nil)
        #expect(SysfsNumber.parseInt("") == nil)
    }

    @Test func formatIsLocaleFree() {
        #expect(SysfsNumber.format(10) == "10")
        #expect(SysfsNumber.format(12.5) == "12.5")
        #expect(SysfsNumber.format(-0.25) == "-0.25")
    }
}

@Suite struct MountMatrixTests {
    @Test func parsesAndApplies() throws {
        let m = try #require(MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1\n"))
        let r = m.apply(x: 1, y: 2, z: 3)
        #expect(r.x == 2 && r.y == -1 && r.z == 3)
        #expect(MountMatrix.parse("1,0,0;0,1,0;0,0,1") == .identity)
        #expect(MountMatrix.parse("0.5, 0, 0; 0, 1, 0; 0, 0, -1")?.rows[2][2] == -1)
    }

    @Test(arguments: ["", "1,0,0;0,1,0", "1,0,0;0,1,0;0,0,1;0,0,0", "1,0;0,1;0,0", "a,b,c;d,e,f;g,h,i",
                      "1,0,0;0,0,0;0,0,1", "nan,0,0;0,1,0;0,0,1", "inf,0,0;0,1,0;0,0,1", "1,0,0,;0,1,0;0,0,1", "1 0 0; 0 1 0; 0 0 1"])
    func rejectsMalformed(text: String) {
        #expect(MountMatrix.parse(text) == nil)
    }

    @Test func resolveOrderAndWarnings() {
        var warnings: [String] = []
        let attrs = ["in_accel_mount_matrix": "0,1,0;1,0,0;0,0,1"]
        let (a, sa) = MountMatrix.resolve(override: nil, property: nil, attribute: { attrs[$0] }, device: "d", warn: { warnings.append($0) })
        #expect(sa == .sysfs("in_accel_mount_matrix") && a.rows[0] == [0, 1, 0])
        let (b, sb) = MountMatrix.resolve(override: nil, property: "-1,0,0;0,-1,0;0,0,1", attribute: { attrs[$0] }, device: "d", warn: { warnings.append($0) })
        #expect(sb == .udev("ACCEL_MOUNT_MATRIX") && b.rows[0] == [-1, 0, 0])
        let (c, sc) = MountMatrix.resolve(override: nil, property: "garbage", attribute: { attrs[$0] }, device: "dev0", warn: { warnings.append($0) })
        #expect(sc == .identity && c == .identity)
        #expect(warnings.count == 1 && warnings[0].contains("dev0") && warnings[0].contains("ACCEL_MOUNT_MATRIX"))
        let (d, sd) = MountMatrix.resolve(override: .identity, property: "-1,0,0;0,-1,0;0,0,1", attribute: { _ in nil }, device: "d", warn: { _ in })
        #expect(sd == .configuration && d == .identity)
    }
}

@Suite struct ScanTypeTests {
    @Test func parsesKernelFormats() throws {
        let a = try #require(IIOScanType.parse("le:s16/32>>0"))
        #expect(!a.bigEndian && a.signed && a.bits == 16 && a.storageBits == 32 && a.shift == 0 && a.repeatCount == 1)
        let b = try #require(IIOScanType.parse("be:u12/16>>4\n"))
        #expect(b.bigEndian && !b.signed && b.bits == 12 && b.storageBits == 16 && b.shift == 4)
        let c = try #require(IIOScanType.parse("le:s16/16X3>>0"))
        #expect(c.repeatCount == 3 && c.length == 6)
        let d = try #require(IIOScanType.parse("le:s64/64"))
        #expect(d.bits == 64)
    }

    @Test(arguments: ["", "garbage", "xe:s16/16>>0", "le:x16/16>>0", "le:s16/12>>0", "le:s12/16>>8", "le:s0/16>>0",
                      "le:s16/24>>0", "le:s16/16X0>>0", "le:s16/16>>", "le:s16/16>>0 junk", "le:s/16>>0", "le:s16>>0",
                      "le:s99999/16>>0"])
    func rejectsBadScanTypes(text: String) {
        #expect(IIOScanType.parse(text) == nil)
    }

    @Test func decodesExactly() throws {
        let s16 = try #require(IIOScanType.parse("le:s16/16>>0"))
        #expect(s16.decode([0xff, 0xff], at: 0) == -1)
        #expect(s16.decode([0x00, 0x80], at: 0) == -32768)
        #expect(s16.decode([0x34, 0x12], at: 0) == 0x1234)
        let be12 = try #require(IIOScanType.parse("be:s12/16>>4"))
        // 0xFFF0 → >>4 = 0xFFF → 12-bit signed -1.
        #expect(be12.decode([0xff, 0xf0], at: 0) == -1)
        #expect(be12.decode([0x7f, 0xf0], at: 0) == 2047)
        #expect(be12.decode([0x80, 0x0f], at: 0) == -2048)
        let u12 = try #require(IIOScanType.parse("be:u12/16>>4"))
        #expect(u12.decode([0xff, 0xf0], at: 0) == 4095)
        let s24in32 = try #require(IIOScanType.parse("le:s24/32>>0"))
        #expect(s24in32.decode([0x00, 0x00, 0x80, 0xAA], at: 0) == -8_388_608)  // storage bits above 24 ignored
        #expect(s16.decode([0x01], at: 0) == nil)  // short frame
        #expect(s16.decode([0x01, 0x02], at: 1) == nil)
    }

    @Test func layoutFollowsKernelAlignment() throws {
        let s16 = try #require(IIOScanType.parse("le:s16/16>>0"))
        let ts = try #require(IIOScanType.parse("le:s64/64>>0"))
        let layout = try #require(IIOFrameLayout(channels: [
            IIOChannel(name: "in_accel_z", index: 2, type: s16),
            IIOChannel(name: "in_accel_x", index: 0, type: s16),
            IIOChannel(name: "in_accel_y", index: 1, type: s16),
            IIOChannel(name: "in_timestamp", index: 3, type: ts),
        ]))
        #expect(layout.offsets == ["in_accel_x": 0, "in_accel_y": 2, "in_accel_z": 4, "in_timestamp": 8])
        #expect(layout.frameBytes == 16)
        var frame = [UInt8](repeating: 0, count: 16)
        frame[2] = 0x10; frame[3] = 0xfc  // y = -1008
        #expect(layout.value(of: "in_accel_y", in: frame) == -1008)
        #expect(layout.value(of: "in_accel_y", in: frame.prefix(3)) == nil)

        let s32 = try #require(IIOScanType.parse("le:s32/32>>0"))
        let mixed = try #require(IIOFrameLayout(channels: [
            IIOChannel(name: "a", index: 0, type: s16), IIOChannel(name: "b", index: 1, type: s32)]))
        #expect(mixed.offsets["b"] == 4 && mixed.frameBytes == 8)
    }
}

@Suite struct SamplingFrequencyTests {
    @Test(arguments: [
        ("1 5 10 25 50 100", "10"), ("100 50 25 12.5 6.25", "12.5"), ("0.781000 1.563000 12.500000 25.000000", "12.5"),
        ("400.000000 200.000000 100.000000 50.000000", "50"), ("5.0 10.0 20.0", "10"), ("1.0 2.50", "2.5"), ("1 2 5", "5"), ("", "10"), ("garbage", "10"),
        ("15\n", "15"), ("nan 20 inf", "20"), ("-5 0 30", "30"),
    ])
    func choosesSmallestAtLeastTen(list: String, expected: String) {
        #expect(SamplingFrequency.choose(available: list) == expected)
    }

    @Test func noListMeansTen() {
        #expect(SamplingFrequency.choose(available: nil) == "10")
    }

    /// A sensor polled faster than 10 Hz is set at least as fast as it is polled: each
    /// poll then reads a new sample, not the last one again (a device held still).
    @Test func atLeastThePollsRate() {
        #expect(SamplingFrequency.leastHz(pollIntervalMs: 100) == 10)
        #expect(SamplingFrequency.leastHz(pollIntervalMs: 1000) == 10)
        #expect(SamplingFrequency.leastHz(pollIntervalMs: 40) == 25)
        #expect(SamplingFrequency.leastHz(pollIntervalMs: 0) == 1000)
        #expect(SamplingFrequency.choose(available: "10 20 50 100", leastHz: 25) == "50")
        #expect(SamplingFrequency.choose(available: "10 12.5 25", leastHz: 25) == "25")
        #expect(SamplingFrequency.choose(available: "5 10 20", leastHz: 25) == "20")
        #expect(SamplingFrequency.choose(available: nil, leastHz: 25) == "25")
    }
}

@Suite struct CalibrationTests {
    @Test func scaleAndOffset() throws {
        let attrs = ["in_accel_scale": "0.5", "in_accel_offset": "-2", "in_accel_z_scale": "2", "in_accel_y_offset": "1"]
        let cal = try IIOCalibration.read { attrs[$0] }.get()
        #expect(cal.scale == [0.5, 0.5, 2])
        #expect(cal.offset == [-2, 1, -2])
        let r = try #require(cal.convert([10, 10, 10]))
        #expect(r.0 == 4 && r.1 == 5.5 && r.2 == 16)
        #expect(cal.convert([1e9, 0, 0]) == nil)
    }

    @Test(arguments: [["in_accel_scale": "0"], ["in_accel_scale": "-0.1"], ["in_accel_scale": "abc"], ["in_accel_scale": ""],
                      ["in_accel_x_scale": "nan"], ["in_accel_offset": "inf"], ["in_accel_scale": "1e400"]])
    func rejectsBadCalibration(attrs: [String: String]) {
        #expect(throws: SensorError.self) { try IIOCalibration.read { attrs[$0] }.get() }
    }

    @Test func absentMeansUnitScaleZeroOffset() throws {
        let cal = try IIOCalibration.read { _ in nil }.get()
        #expect(cal.scale == [1, 1, 1] && cal.offset == [0, 0, 0])
    }
}

@Suite struct ClassifierTests {
    func device(_ subsystem: String = "iio", properties: [String: String] = [:], attributes: [String: String] = [:],
                devnode: String? = "/dev/iio:device0", parent: [String: String] = [:]) -> DeviceDescription {
        DeviceDescription(syspath: "/sys/devices/x/iio:device0", sysname: "iio:device0", subsystem: subsystem, devnode: devnode,
                          properties: properties, attributes: attributes, parentAttributes: parent)
    }

    @Test func typeWords() {
        #expect(SensorClassifier.classify(device(properties: ["ORIENTATIOND_TYPE": "iio-poll-accel iio-buffer-accel"])) == .candidate([.iioBuffer, .iioPoll]))
        #expect(SensorClassifier.classify(device(properties: ["IIO_SENSOR_PROXY_TYPE": "iio-poll-light"])) == .none)
        #expect(SensorClassifier.classify(device(properties: ["IIO_SENSOR_PROXY_TYPE": "iio-poll-accel"])) == .candidate([.iioPoll]))
        // A buffer with readable raw attributes can fall back to polling.
        let raw = ["in_accel_x_raw": "1", "in_accel_y_raw": "1", "in_accel_z_raw": "1"]
        #expect(SensorClassifier.classify(device(properties: ["ORIENTATIOND_TYPE": "iio-buffer-accel"], attributes: raw)) == .candidate([.iioBuffer, .iioPoll]))
        #expect(SensorClassifier.classify(device(properties: ["ORIENTATIOND_TYPE": "iio-buffer-accel"])) == .candidate([.iioBuffer]))
    }

    @Test func attributesWithoutRules() {
        let raw = ["in_accel_x_raw": "1", "in_accel_y_raw": "1", "in_accel_z_raw": "1"]
        #expect(SensorClassifier.classify(device(attributes: raw)) == .candidate([.iioPoll]))
        #expect(SensorClassifier.classify(device(attributes: ["in_accel_x_raw": "1"])) == .none)
        let scan = ["scan_elements/in_accel_x_en": "0", "scan_elements/in_accel_y_en": "0", "scan_elements/in_accel_z_en": "0"]
        #expect(SensorClassifier.classify(device(attributes: scan)) == .candidate([.iioBuffer]))
        #expect(SensorClassifier.classify(device("input", properties: ["ID_INPUT_ACCELEROMETER": "1"], devnode: "/dev/input/event3")) == .candidate([.input]))
        #expect(SensorClassifier.classify(device("input", properties: ["ID_INPUT_ACCELEROMETER": "1"], devnode: nil)) == .none)
        #expect(SensorClassifier.classify(device("input", devnode: "/dev/input/event3", parent: ["properties": "40"])) == .candidate([.input]))
        #expect(SensorClassifier.classify(device("input", devnode: "/dev/input/event3", parent: ["properties": "0"])) == .none)
    }

    @Test func baseIsSkipped() {
        let p = ["ORIENTATIOND_TYPE": "iio-poll-accel"]
        if case .skipped = SensorClassifier.classify(device(properties: p.merging(["ACCEL_LOCATION": "base"]) { a, _ in a })) {} else { Issue.record("base not skipped") }
        if case .skipped = SensorClassifier.classify(device(properties: p, attributes: ["label": "accel-base"])) {} else { Issue.record("label not skipped") }
        #expect(SensorClassifier.classify(device(properties: p.merging(["ACCEL_LOCATION": "display"]) { a, _ in a })) == .candidate([.iioPoll]))
    }
}

@Suite struct EvdevAssemblerTests {
    func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: EvdevFrameAssembler.eventSize - 8)
        bytes += [UInt8(type & 0xff), UInt8(type >> 8), UInt8(code & 0xff), UInt8(code >> 8)]
        let v = UInt32(bitPattern: value)
        bytes += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
        return bytes
    }

    @Test func framesAtSynReport() {
        let bytes = event(3, 0, 100) + event(3, 1, -1000) + event(0, 0, 0) + event(3, 2, 5) + [1, 2, 3]
        let (events, leftover) = EvdevFrameAssembler.events(in: bytes)
        #expect(events.count == 4 && leftover == 3)
        var a = EvdevFrameAssembler()
        var frames: [EvdevFrameAssembler.Output] = []
        for e in events { if let out = a.feed(type: e.type, code: e.code, value: e.value) { frames.append(out) } }
        #expect(frames == [.frame([100, -1000, 0])])
        #expect(a.axes == [100, -1000, 5])
    }

    /// The event's time: seconds and microseconds, the two longs before its type.
    @Test func eventsCarryTheirTime() {
        func le(_ n: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
        let timed = le(1_700_000_000) + le(250_000) + Array(event(0, 0, 0).suffix(8))
        let negative = le(-2) + le(500_000) + Array(event(3, 1, -1).suffix(8))
        let (events, _) = EvdevFrameAssembler.events(in: timed + negative)
        #expect(events == [EvdevFrameAssembler.Event(type: 0, code: 0, value: 0, timeNs: 1_700_000_000_250_000_000),
                           EvdevFrameAssembler.Event(type: 3, code: 1, value: -1, timeNs: -1_500_000_000)])
    }

    @Test func dropsUntilNextReportAfterSynDropped() {
        var a = EvdevFrameAssembler()
        #expect(a.feed(type: 0, code: 3, value: 0) == .dropped)
        #expect(a.feed(type: 3, code: 0, value: 7) == nil)
        #expect(a.feed(type: 0, code: 0, value: 0) == nil)
        #expect(a.axes == [0, 0, 0])
        _ = a.feed(type: 3, code: 0, value: 9)
        #expect(a.feed(type: 0, code: 0, value: 0) == .frame([9, 0, 0]))
    }
}

@Suite struct DriverTableTests {
    @Test func tableOrderIsPreferenceAndEveryDriverIsAsked() {
        #expect(SensorDriver.table.map(\.kind) == [.iioBuffer, .iioPoll, .input])
        #expect([BackendKind.input, .simulated, .iioPoll, .iioBuffer].sorted() == [.iioBuffer, .iioPoll, .input, .simulated])
        #expect(SensorDriver.table.map(\.typeWord) == ["iio-buffer-accel", "iio-poll-accel", "input-accel"])
        for driver in SensorDriver.table {
            for probe in driver.probes { #expect(SensorClassifier.probedAttributes.contains(probe)) }
        }
        #expect(SensorDriver.driver(for: .simulated) == nil)
        #expect(BackendKind.replay.rawValue == "replay")
    }
}
