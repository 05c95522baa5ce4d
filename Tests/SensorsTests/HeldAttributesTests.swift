import Glibc
import Testing
import TestSupport
@_spi(Testing) import Posix
@testable import Sensors

/// Attribute files kept open between readings: a file changed in place (as sysfs changes)
/// is read afresh, one replaced or removed (as umockdev's `set_attribute` and a vanished
/// device do) is opened again by name once the directory watch reports it.
@Suite struct HeldAttributesTests {
    /// A directory of regular files standing in for a device's attributes.
    final class Device {
        let path: String

        init() throws {
            // As /proc/self/fd names it (TMPDIR may end in a slash, or be a symlink).
            let made = try makeTemporaryDirectory(prefix: "held-attributes")
            guard let real = realpath(made, nil) else { throw Errno.current }
            defer { free(real) }
            path = String(cString: real)
        }

        deinit {
            for name in SysfsFile.list(path) { unlink(path + "/" + name) }
            rmdir(path)
        }

        /// Rewrites `name` in place: the same file, new contents.
        func rewrite(_ name: String, _ text: String) throws {
            let fd = try FileDescriptor.open(path + "/" + name, [.writeOnly, .create, .truncate])
            try fd.writeAll(text)
        }

        /// Replaces `name` by a new file (write beside it, rename over it).
        func replace(_ name: String, _ text: String) throws {
            try rewrite(name + ".new", text)
            guard rename(path + "/" + name + ".new", path + "/" + name) == 0 else { throw Errno.current }
        }

        func remove(_ name: String) { unlink(path + "/" + name) }

        /// `name` written with `text`, held, and read once (which opens it).
        func held(_ name: String, _ text: String, loop: EventLoop?) throws -> HeldAttributes {
            try rewrite(name, text)
            let held = HeldAttributes(directory: path, names: [name], loop: loop)
            #expect(try held.text(0).get() == text.filter { $0 != "\n" })
            return held
        }
    }

    /// How many of this process's descriptors are open on `path` (other suites run
    /// beside this one: only the file's own count says anything).
    static func opened(_ path: String) -> Int {
        SysfsFile.list("/proc/self/fd").filter { fd in
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/fd/" + fd, &buffer, buffer.count - 1)
            return n > 0 && String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path
        }.count
    }

    @Test func aFileChangedInPlaceIsReadAfreshThroughTheSameDescriptor() throws {
        let device = try Device()
        let held = try device.held("in_accel_x_raw", "12\n", loop: nil)
        try device.rewrite("in_accel_x_raw", "-340\n")
        #expect(try held.text(0).get() == "-340")
        #expect(Self.opened(device.path + "/in_accel_x_raw") == 1, "kept open, once")
    }

    @Test func aReplacedFileIsOpenedAgainOnceTheWatchReportsIt() throws {
        let loop = try EventLoop()
        let device = try Device()
        let held = try device.held("in_illuminance_raw", "100\n", loop: loop)
        try device.replace("in_illuminance_raw", "300\n")
        // The open file is the old one until the loop hears of the replacement.
        #expect(try held.text(0).get() == "100")
        loop.dispatchPending()
        #expect(try held.text(0).get() == "300")
    }

    @Test func aRemovedFileIsNoEntry() throws {
        let loop = try EventLoop()
        let device = try Device()
        let held = try device.held("in_proximity_raw", "7\n", loop: loop)
        device.remove("in_proximity_raw")
        loop.dispatchPending()
        #expect(held.text(0) == .failure(.noEntry))
    }

    @Test func closeLetsGoOfTheFilesAndTheWatch() throws {
        let loop = try EventLoop()
        let device = try Device()
        try device.rewrite("a", "1\n")
        try device.rewrite("b", "2\n")
        let held = HeldAttributes(directory: device.path, names: ["a", "b"], loop: loop)
        #expect(try held.text(0).get() == "1")
        #expect(try held.text(1).get() == "2")
        #expect(Self.opened(device.path + "/a") == 1 && Self.opened(device.path + "/b") == 1)
        #expect(held.isWatching)
        held.close()
        #expect(Self.opened(device.path + "/a") == 0 && Self.opened(device.path + "/b") == 0)
        #expect(!held.isWatching)
        // Read again after a close, it opens them again.
        #expect(try held.text(1).get() == "2")
    }
}
