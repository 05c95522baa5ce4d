import Glibc
import Testing
@_spi(Testing) @testable import Posix

@Suite struct DirectoryWatchTests {
    /// A file replaced by rename (what umockdev's set_attribute and GLib's
    /// g_file_set_contents do), one removed, and the directory itself removed.
    @Test func replacedRemovedAndGone() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("device")
        #expect(mkdir(directory, 0o755) == 0)
        func write(_ name: String, _ text: String) {
            let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        write("in_accel_x_raw", "1\n")
        let loop = try EventLoop()
        var seen: [String] = []
        var gone = false
        let watch = try DirectoryWatch(path: directory, loop: loop) { names, directoryGone in
            seen += names
            gone = gone || directoryGone
        }
        write("in_accel_x_raw.tmp", "2\n")
        #expect(rename(directory + "/in_accel_x_raw.tmp", directory + "/in_accel_x_raw") == 0)
        #expect(loop.run(until: deadline(afterMs: 3000)) { !seen.contains("in_accel_x_raw") })
        unlink(directory + "/in_accel_x_raw")
        #expect(rmdir(directory) == 0)
        #expect(loop.run(until: deadline(afterMs: 3000)) { !gone })
        withExtendedLifetime(watch) {}
    }

    @Test func truncatedRecordsEndTheBatch() {
        var names: [String] = []
        var gone = false
        // wd 1, IN_CREATE, cookie 0, len 8, "abc" padded; then a record cut short.
        let record: [UInt8] = [1, 0, 0, 0, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0] + Array("abc".utf8) + [0, 0, 0, 0, 0]
        DirectoryWatch.parse(ArraySlice(record + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 200, 0, 0, 0, 65]), names: &names, gone: &gone)
        #expect(names == ["abc"])
        #expect(!gone)
    }
}
