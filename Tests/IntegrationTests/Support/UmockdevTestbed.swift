import Foundation
import Glibc
import TestSupport

/// A umockdev testbed, driven through the project's helper (scripts/umockdev-helper.py): Debian's python3 with
/// gi.repository.UMockdev, run with libumockdev-preload (the testbed's own uevent sender
/// resolves devices through libudev, so it must see the testbed too; the test process
/// itself cannot be preloaded). The helper owns the testbed and runs a GLib main loop,
/// taking one JSON command per line on standard input and answering one JSON line.
///
/// It gives fake sysfs devices with properties and attributes, /dev nodes backed by
/// pseudo-terminals, and uevents that reach the daemon's udev monitor. The daemon sees
/// it through `environment` (LD_PRELOAD and UMOCKDEV_DIR, given explicitly).
final class UmockdevTestbed {
    private let process = Process()
    private let input: FileHandle
    private let output: Int32
    private var pending: [UInt8] = []
    private(set) var rootDirectory = ""

    static let python = "/usr/bin/python3"
    static let preload = "libumockdev-preload.so.0"

    /// The one helper, shared with the benchmarks.
    static let helper = repositoryRoot + "/scripts/umockdev-helper.py"

    init() throws {
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.helper]
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = Self.preload
        env.removeValue(forKey: "UMOCKDEV_DIR")
        process.environment = env
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading.fileDescriptor
        outputHandle = stdout.fileHandleForReading
        let hello = try readReply()
        guard let root = hello["root"] as? String else { throw TestFailure("umockdev helper: no root directory") }
        rootDirectory = root
    }

    private let outputHandle: FileHandle

    deinit {
        try? input.close()
        if !waitUntil(seconds: 5, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: rootDirectory)
        }
    }

    /// Environment for a child that should see the testbed.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = Self.preload
        env["UMOCKDEV_DIR"] = rootDirectory
        return env
    }

    private func readReply(seconds: Double = 10) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                    throw TestFailure("umockdev helper: bad reply")
                }
                if object["ok"] as? Bool != true { throw TestFailure("umockdev: \(object["error"] ?? "failed")") }
                return object
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var pfd = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&pfd, 1, left) == 1 else { throw TestFailure("umockdev helper did not answer") }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(output, &chunk, chunk.count)
            guard n > 0 else { throw TestFailure("umockdev helper exited") }
            pending += chunk[0..<n]
        }
    }

    @discardableResult
    private func command(_ fields: [String: String]) throws -> [String: Any] {
        var data = try JSONSerialization.data(withJSONObject: fields)
        data.append(UInt8(ascii: "\n"))
        try input.write(contentsOf: data)
        return try readReply()
    }

    /// Adds devices from umockdev-record text ("P:", "N:", "E:", "A:" lines); sends "add".
    func add(_ description: String) throws { try command(["op": "add", "text": description]) }

    /// Replaces an attribute file (a new inode, as umockdev does).
    func setAttribute(_ syspath: String, _ name: String, _ value: String) throws {
        try command(["op": "attr", "dev": syspath, "name": name, "value": value])
    }

    /// Rewrites an attribute file in place (same inode), as real sysfs content changes.
    func rewriteAttribute(_ syspath: String, _ name: String, _ value: String) throws {
        try value.write(toFile: rootDirectory + syspath + "/" + name, atomically: false, encoding: .utf8)
    }

    func attribute(_ syspath: String, _ name: String) -> String? {
        try? String(contentsOfFile: rootDirectory + syspath + "/" + name, encoding: .utf8)
    }

    func setProperty(_ syspath: String, _ name: String, _ value: String) throws {
        try command(["op": "prop", "dev": syspath, "name": name, "value": value])
    }

    func uevent(_ syspath: String, _ action: String) throws { try command(["op": "uevent", "dev": syspath, "action": action]) }

    /// Sends "remove" (umockdev does not) and then removes the device.
    func remove(_ syspath: String) throws { try command(["op": "remove", "dev": syspath]) }

    /// Writes bytes into a device node (the test's end of its pseudo-terminal).
    func writeNode(_ devnode: String, _ bytes: [UInt8]) throws {
        try command(["op": "write", "node": devnode, "hex": bytes.map { String(format: "%02x", $0) }.joined()])
    }

    /// Plays IIO buffer frames (raw s16 x, y, z) into a device node, each at its `t` ms
    /// after the call, as a sensor sending at the recording's timing would; returns the
    /// CLOCK_MONOTONIC millisecond the times count from.
    func play(_ devnode: String, frames: [(t: Int, raw: (Int, Int, Int))]) throws -> Int64 {
        var data = try JSONSerialization.data(withJSONObject: [
            "op": "play", "node": devnode, "frames": frames.map { [$0.t, $0.raw.0, $0.raw.1, $0.raw.2] },
        ] as [String: Any])
        data.append(UInt8(ascii: "\n"))
        try input.write(contentsOf: data)
        let reply = try readReply()
        guard let ns = reply["t"] as? Int64 ?? (reply["t"] as? NSNumber)?.int64Value else { throw TestFailure("play: no start time") }
        return ns / 1_000_000
    }

    /// Answers the device's ioctls from an umockdev ioctl recording.
    func loadIoctl(_ devnode: String, recording: String) throws {
        let path = rootDirectory + "/ioctl-" + UUID().uuidString.prefix(8)
        try recording.write(toFile: path, atomically: true, encoding: .utf8)
        try command(["op": "ioctl", "node": devnode, "path": path])
    }
}

/// A private bus, a umockdev testbed and orientationd on both, started as a user starts
/// it: with no `--sensor` argument (udev's accelerometers are the default on every bus),
/// so the whole umockdev suite checks the default.
final class SensorDaemonFixture {
    let bus: TestBus
    let testbed: UmockdevTestbed
    private(set) var daemon: ChildProcess?

    init() throws {
        bus = try TestBus()
        testbed = try UmockdevTestbed()
    }

    /// Starts the daemon (after the test added its devices) and returns a peer once it
    /// owns its name.
    func start(extraArguments: [String] = []) throws -> Peer {
        let daemon = try ChildProcess(product: "orientationd",
                                      arguments: ["--address", bus.address, "--verbose"] + extraArguments,
                                      directory: bus.directory, environment: testbed.environment)
        self.daemon = daemon
        let peer = try Peer(bus: bus)
        guard peer.waitForService() else { throw TestFailure("orientationd did not take its name; stderr:\n\(daemon.stderr)") }
        return peer
    }

    /// Where most sensor tests start: the daemon with `device` in the testbed, and a
    /// started client (the sensor is being read).
    static func reading(_ device: String) throws -> (SensorDaemonFixture, Peer) {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(device)
        let peer = try fixture.start()
        _ = try SensorPollTests.startClient(peer)
        return (fixture, peer)
    }

    /// The daemon with an evdev accelerometer whose axes report `values` at
    /// `resolution` units per g (EVIOCGABS), not started by any client yet.
    static func evdev(values: (Int32, Int32, Int32), resolution: Int32) throws -> (SensorDaemonFixture, Peer) {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.inputParent())
        try fixture.testbed.add(FakeDevice.inputEvent())
        try fixture.testbed.loadIoctl(FakeDevice.eventNode, recording: FakeDevice.absRecording(values: values, resolution: resolution))
        return (fixture, try fixture.start())
    }

    var stderr: String { daemon?.stderr ?? "" }
    var isRunning: Bool { daemon?.process.isRunning ?? false }

    /// Waits until the daemon's log contains `text`.
    func logContains(_ text: String, seconds: Double = 10) -> Bool {
        waitUntil(seconds: seconds) { stderr.contains(text) }
    }
}

/// Descriptions of fake accelerometers.
enum FakeDevice {
    static let g = 9.80665

    /// An IIO accelerometer for polling, raw values for `pose` at `scale`.
    static func iioPoll(number: Int = 0, name: String = "accel_3d", type: String? = "iio-poll-accel",
                        raw: (Int, Int, Int) = (0, -1000, 0), scale: String? = "0.00980665",
                        extraProperties: [String: String] = [:], extraAttributes: [String: String] = [:]) -> String {
        var text = "P: /devices/platform/accel\(number)/iio:device\(number)\n"
        text += "E: SUBSYSTEM=iio\n"
        if let type { text += "E: ORIENTATIOND_TYPE=\(type)\n" }
        for (key, value) in extraProperties.sorted(by: { $0.key < $1.key }) { text += "E: \(key)=\(value)\n" }
        text += "A: name=\(name)\n"
        text += "A: in_accel_x_raw=\(raw.0)\nA: in_accel_y_raw=\(raw.1)\nA: in_accel_z_raw=\(raw.2)\n"
        if let scale { text += "A: in_accel_scale=\(scale)\n" }
        for (key, value) in extraAttributes.sorted(by: { $0.key < $1.key }) { text += "A: \(key)=\(value)\n" }
        return text
    }

    static func syspath(_ number: Int) -> String { "/sys/devices/platform/accel\(number)/iio:device\(number)" }

    /// Raw counts (scale 0.00980665 = 1 mg) of a device at rest in `orientation`.
    static func raw(_ orientation: String) -> (Int, Int, Int) {
        switch orientation {
        case "bottom-up": (0, 1000, 0)
        case "left-up": (1000, 0, 0)
        case "right-up": (-1000, 0, 0)
        case "face-up": (0, 0, 1000)
        default: (0, -1000, 0)
        }
    }
}

extension FakeDevice {
    /// An IIO accelerometer with a buffer: scan elements x, y, z (and a timestamp) of
    /// `type`, a /dev node the test writes frames into.
    static func iioBuffer(number: Int = 0, name: String = "accel_3d", type: String? = "iio-buffer-accel",
                          scanType: String = "le:s16/16>>0", timestamp: Bool = true, raw: (Int, Int, Int)? = nil,
                          scale: String = "0.00980665", extraProperties: [String: String] = [:],
                          extraAttributes: [String: String] = [:]) -> String {
        var text = "P: /devices/platform/accel\(number)/iio:device\(number)\n"
        text += "N: iio:device\(number)\n"
        text += "E: SUBSYSTEM=iio\nE: DEVNAME=/dev/iio:device\(number)\n"
        if let type { text += "E: ORIENTATIOND_TYPE=\(type)\n" }
        for (key, value) in extraProperties.sorted(by: { $0.key < $1.key }) { text += "E: \(key)=\(value)\n" }
        text += "A: name=\(name)\nA: in_accel_scale=\(scale)\n"
        if let raw { text += "A: in_accel_x_raw=\(raw.0)\nA: in_accel_y_raw=\(raw.1)\nA: in_accel_z_raw=\(raw.2)\n" }
        text += "A: buffer/enable=0\nA: buffer/length=2\n"
        for (index, axis) in ["x", "y", "z"].enumerated() {
            text += "A: scan_elements/in_accel_\(axis)_en=0\n"
            text += "A: scan_elements/in_accel_\(axis)_index=\(index)\n"
            text += "A: scan_elements/in_accel_\(axis)_type=\(scanType)\n"
        }
        if timestamp {
            text += "A: scan_elements/in_timestamp_en=0\nA: scan_elements/in_timestamp_index=3\nA: scan_elements/in_timestamp_type=le:s64/64>>0\n"
        }
        for (key, value) in extraAttributes.sorted(by: { $0.key < $1.key }) { text += "A: \(key)=\(value)\n" }
        return text
    }

    static func devnode(_ number: Int) -> String { "/dev/iio:device\(number)" }

    /// One frame of three little-endian s16 values (+ padding and an s64 timestamp).
    static func frameS16(_ raw: (Int, Int, Int), timestamp: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [raw.0, raw.1, raw.2] {
            let v = UInt16(bitPattern: Int16(value))
            bytes += [UInt8(v & 0xff), UInt8(v >> 8)]
        }
        if timestamp { bytes += [0, 0] + [UInt8](repeating: 0x11, count: 8) }
        return bytes
    }
}

extension FakeDevice {
    static let inputSyspath = "/sys/devices/platform/acc/input/input0"
    static let eventSyspath = inputSyspath + "/event0"
    static let eventNode = "/dev/input/event0"

    /// An input device and its evdev node; `typed` adds ORIENTATIOND_TYPE, otherwise
    /// ID_INPUT_ACCELEROMETER marks it.
    static func inputParent(name: String = "Fake Accelerometer") -> String {
        "P: /devices/platform/acc/input/input0\nE: SUBSYSTEM=input\nE: NAME=\"\(name)\"\nA: name=\(name)\nA: properties=40\n"
    }

    static func inputEvent(typed: Bool = false, extraProperties: [String: String] = [:]) -> String {
        var text = "P: /devices/platform/acc/input/input0/event0\nN: input/event0\nE: SUBSYSTEM=input\nE: DEVNAME=/dev/input/event0\n"
        text += typed ? "E: ORIENTATIOND_TYPE=input-accel\n" : "E: ID_INPUT_ACCELEROMETER=1\n"
        for (key, value) in extraProperties.sorted(by: { $0.key < $1.key }) { text += "E: \(key)=\(value)\n" }
        return text
    }

    /// An umockdev ioctl recording answering EVIOCGABS for x, y, z.
    static func absRecording(values: (Int32, Int32, Int32), resolution: Int32, range: Int32 = 2048) -> String {
        func info(_ value: Int32) -> String {
            [value, -range, range - 1, 0, 0, resolution].flatMap { v -> [UInt8] in
                let u = UInt32(bitPattern: v)
                return [UInt8(u & 0xff), UInt8(u >> 8 & 0xff), UInt8(u >> 16 & 0xff), UInt8(u >> 24)]
            }.map { String(format: "%02x", $0) }.joined()
        }
        return "@DEV \(eventNode)\nEVIOCGABS(0) 0 \(info(values.0))\nEVIOCGABS(1) 0 \(info(values.1))\nEVIOCGABS(2) 0 \(info(values.2))\n"
    }

    /// struct input_event bytes (64-bit: 16 bytes of time, type, code, value).
    /// One `struct input_event` (64-bit layout), stamped `timeNs` (the kernel's
    /// CLOCK_REALTIME unless the reader chose another clock).
    static func inputEvent(_ type: UInt16, _ code: UInt16, _ value: Int32, timeNs: Int64 = 0) -> [UInt8] {
        func le(_ n: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
        var bytes = le(timeNs / 1_000_000_000) + le(timeNs % 1_000_000_000 / 1000)
        bytes += [UInt8(type & 0xff), UInt8(type >> 8), UInt8(code & 0xff), UInt8(code >> 8)]
        let v = UInt32(bitPattern: value)
        return bytes + [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
    }

    static func inputFrame(_ x: Int32, _ y: Int32, _ z: Int32, timeNs: Int64 = 0) -> [UInt8] {
        inputEvent(3, 0, x, timeNs: timeNs) + inputEvent(3, 1, y, timeNs: timeNs) + inputEvent(3, 2, z, timeNs: timeNs)
            + inputEvent(0, 0, 0, timeNs: timeNs)
    }
}
