import Glibc
import Testing
@_spi(Testing) @testable import Posix

/// posix_spawn as a shell does it: streams, working directory, exit statuses, and the
/// signals a child must see whatever its parent blocks.
@Suite(.serialized) struct SubprocessTests {
    /// Runs `/bin/sh -c script`; its standard output and exit status.
    func shell(_ script: String, directory: String? = nil) throws -> (String, Int32) {
        let pipe = try FileDescriptor.pipe()
        let pid = try Subprocess.start("/bin/sh", ["-c", script], output: pipe.write.rawValue, directory: directory)
        pipe.write.close()
        var output: [UInt8] = []
        while case let chunk = try readSome(pipe.read, max: 4096), !chunk.isEmpty { output += chunk }
        return (String(decoding: output, as: UTF8.self), Subprocess.wait(pid))
    }

    @Test func outputDirectoryAndExitStatus() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (output, status) = try shell("pwd; echo hello", directory: directory.path)
        #expect(output == directory.path + "\nhello\n")
        #expect(status == 0)
        #expect(try shell("exit 3").1 == 3)
    }

    @Test func aSignalDeathIs128PlusTheSignal() throws {
        #expect(try shell("kill -KILL $$").1 == 128 + SIGKILL)
    }

    /// The caller blocks SIGTERM (as the daemon and the test runner's threads do): the
    /// child still gets it at its default action, and dies of it at once instead of
    /// sleeping on (which it would with the mask inherited).
    @Test func aBlockedSignalIsNotInherited() throws {
        var block = sigset_t(), previous = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let started = MonotonicClock.milliseconds()
        #expect(try shell("kill -TERM $$; sleep 20; exit 0").1 == 128 + SIGTERM)
        #expect(MonotonicClock.milliseconds() - started < 10_000)
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: Errno(rawValue: ENOENT)) { try Subprocess.start("/nonexistent/program", []) }
    }

    @Test func pollReapsOnlyAnEndedChild() throws {
        let pipe = try FileDescriptor.pipe()
        // The child waits for the pipe to close: running until the test says so.
        let pid = try Subprocess.start("/bin/sh", ["-c", "read line; exit 5"], input: pipe.read.rawValue)
        pipe.read.close()
        #expect(Subprocess.poll(pid) == nil)
        pipe.write.close()
        #expect(Subprocess.wait(pid) == 5)
    }

    /// The loop hears of a child's end (reaped, with its status) while it goes on with
    /// other work; a watch let go before then says nothing and keeps no descriptor.
    @Test func exitWatchReportsTheEndOnTheLoop() throws {
        let loop = try EventLoop()
        let pipe = try FileDescriptor.pipe()
        let pid = try Subprocess.start("/bin/sh", ["-c", "read line; exit 7"], input: pipe.read.rawValue)
        pipe.read.close()
        var status: Int32?
        let watch = try ExitWatch(pid: pid, loop: loop) { status = $0 }
        // Still running: the loop has nothing to say within a short wait.
        #expect(!loop.run(until: MonotonicClock.milliseconds() + 50, while: { status == nil }))
        pipe.write.close()
        #expect(loop.run(until: MonotonicClock.milliseconds() + 10_000, while: { status == nil }))
        #expect(status == 7)
        #expect(Subprocess.poll(watch.pid) == nil)  // already reaped

        let other = try FileDescriptor.pipe()
        let second = try Subprocess.start("/bin/sh", ["-c", "read line; exit 0"], input: other.read.rawValue)
        other.read.close()
        var called = false
        var dropped: ExitWatch? = try ExitWatch(pid: second, loop: loop) { _ in called = true }
        #expect(dropped != nil)
        dropped = nil
        other.write.close()
        #expect(Subprocess.wait(second) == 0)
        loop.dispatchPending()
        #expect(!called)
    }
}

/// A new file holding `text`.
func create(_ path: String, _ text: String) throws {
    try FileDescriptor.open(path, [.writeOnly, .create, .truncate]).writeAll(text)
}

/// The descriptors the standard streams are, duplicates, link counts, directory lists.
@Suite struct DescriptorTests {
    @Test func aBorrowedDescriptorIsNeverClosed() throws {
        let pipe = try FileDescriptor.pipe()
        do {
            let borrowed = FileDescriptor(borrowing: pipe.write.rawValue)
            try borrowed.writeAll("x")
            borrowed.close()
        }
        // Still open: the owner can write through it.
        try pipe.write.writeAll("y")
        #expect(try readSome(pipe.read, max: 8) == Array("xy".utf8))
    }

    @Test func aDuplicateIsOwnedAndCloseOnExec() throws {
        let pipe = try FileDescriptor.pipe()
        let copy = try pipe.write.duplicate()
        #expect(copy.rawValue != pipe.write.rawValue)
        #expect(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        pipe.write.close()
        try copy.writeAll("z")
        copy.close()
        #expect(try readSome(pipe.read, max: 8) == Array("z".utf8))
        #expect(try readSome(pipe.read, max: 8).isEmpty)  // the last writer closed
    }

    @Test func linkCountFallsToZeroWhenTheFileIsReplaced() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("attr")
        try create(path, "1\n")
        let fd = try FileDescriptor.open(path)
        #expect(try fd.linkCount() == 1)
        try create(directory.file("new"), "2\n")
        #expect(rename(directory.file("new"), path) == 0)
        #expect(try fd.linkCount() == 0)
    }

    @Test func listIsSortedWithoutDotEntries() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        for name in ["b", "a", "c"] { try create(directory.file(name), "") }
        #expect(try FileSystem.list(directory.path) == ["a", "b", "c"])
        #expect(throws: Errno(rawValue: ENOENT)) { try FileSystem.list(directory.file("missing")) }
    }
}
