import CUmockdev
import Foundation
import Glibc

/// A umockdev testbed driven through its C API: fake sysfs devices with properties and
/// attributes, /dev nodes backed by pseudo-terminals, and uevents that reach the
/// daemon's udev monitor. The daemon sees it through `environment` (LD_PRELOAD of
/// libumockdev-preload and UMOCKDEV_DIR, given explicitly).
final class UmockdevTestbed {
    private let handle: UnsafeMutableRawPointer
    let rootDirectory: String
    let sysDirectory: String

    /// umockdev_testbed_new sets UMOCKDEV_DIR in this process: serialise creations.
    private static let creation = NSLock()

    init() throws {
        Self.creation.lock()
        defer { Self.creation.unlock() }
        guard let handle = cumockdev_new() else { throw TestFailure("umockdev_testbed_new failed") }
        self.handle = handle
        rootDirectory = String(cString: cumockdev_root_dir(handle))
        sysDirectory = String(cString: cumockdev_sys_dir(handle))
    }

    deinit { cumockdev_free(handle) }

    /// Environment for a child that should see the testbed.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = "libumockdev-preload.so.0"
        env["UMOCKDEV_DIR"] = rootDirectory
        return env
    }

    /// Adds devices from umockdev-record text ("P:", "N:", "E:", "A:" lines); sends "add".
    func add(_ description: String) throws {
        if let message = cumockdev_add_from_string(handle, description) {
            defer { free(message) }
            throw TestFailure("umockdev: \(String(cString: message))")
        }
    }

    func setAttribute(_ syspath: String, _ name: String, _ value: String) {
        cumockdev_set_attribute(handle, syspath, name, value)
    }

    /// Rewrites an attribute file in place (same inode), as real sysfs content changes.
    func rewriteAttribute(_ syspath: String, _ name: String, _ value: String) throws {
        try value.write(toFile: rootDirectory + syspath + "/" + name, atomically: false, encoding: .utf8)
    }

    func attribute(_ syspath: String, _ name: String) -> String? {
        try? String(contentsOfFile: rootDirectory + syspath + "/" + name, encoding: .utf8)
    }

    func setProperty(_ syspath: String, _ name: String, _ value: String) {
        cumockdev_set_property(handle, syspath, name, value)
    }

    func uevent(_ syspath: String, _ action: String) { cumockdev_uevent(handle, syspath, action) }

    /// Sends "remove" (umockdev does not) and then removes the device.
    func remove(_ syspath: String) {
        uevent(syspath, "remove")
        cumockdev_remove_device(handle, syspath)
    }

    /// The test's end of a device node's pseudo-terminal.
    func nodeDescriptor(_ devnode: String) -> Int32 { cumockdev_dev_fd(handle, devnode) }

    func writeNode(_ devnode: String, _ bytes: [UInt8]) throws {
        let fd = nodeDescriptor(devnode)
        guard fd >= 0 else { throw TestFailure("no pty for \(devnode)") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("short write to \(devnode)") }
    }

    func loadIoctl(_ devnode: String, recording: String) throws {
        let path = rootDirectory + "/ioctl-" + UUID().uuidString.prefix(8)
        try recording.write(toFile: path, atomically: true, encoding: .utf8)
        if let message = cumockdev_load_ioctl(handle, devnode, path) {
            defer { free(message) }
            throw TestFailure("umockdev ioctl: \(String(cString: message))")
        }
    }
}

/// A private bus, a umockdev testbed and orientationd with `--sensor auto` on both.
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
                                      arguments: ["--address", bus.address, "--sensor", "auto", "--verbose"] + extraArguments,
                                      directory: bus.directory, environment: testbed.environment)
        self.daemon = daemon
        let peer = try Peer(bus: bus)
        guard peer.waitForService() else { throw TestFailure("orientationd did not take its name; stderr:\n\(daemon.stderr)") }
        return peer
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
