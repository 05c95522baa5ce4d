import Glibc
import Testing
@_spi(Testing) @testable import Posix

@Suite struct SignalTests {
    /// `handleSignals` blocks the signal for the calling thread only (signal masks are per
    /// thread) and the test runner has other threads, so a process-directed
    /// `kill(getpid(), …)` could be delivered to one of them. The test therefore sends a
    /// thread-directed signal to its own thread, where the signal is blocked and stays
    /// pending for the signalfd, and installs a do-nothing handler first so that a stray
    /// delivery can never terminate the test process.
    @Test func handleSignalsDeliversABlockedSignalThroughTheLoop() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        var oldMask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &oldMask)
        defer {
            pthread_sigmask(SIG_SETMASK, &oldMask, nil)
            // Keep the harmless handler: a late stray signal must not kill the process.
        }

        let loop = try EventLoop()
        var received: [Int32] = []
        try loop.handleSignals([SIGUSR1, SIGWINCH]) { received.append($0) }

        // handleSignals blocked them for this thread.
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGUSR1) == 1)
        #expect(sigismember(&mask, SIGWINCH) == 1)

        #expect(pthread_kill(pthread_self(), SIGUSR1) == 0)
        #expect(loop.run(until: deadline(afterMs: 3000)) { received.isEmpty })
        #expect(received == [SIGUSR1])

        #expect(pthread_kill(pthread_self(), SIGWINCH) == 0)
        #expect(loop.run(until: deadline(afterMs: 3000)) { received.count < 2 })
        #expect(received == [SIGUSR1, SIGWINCH])
    }
}

@Suite struct ErrnoTests {
    @Test func descriptionsComeFromTheCLibrary() {
        #expect(Errno.noEntry.description == "No such file or directory")
        #expect(Errno.invalidArgument.description == "Invalid argument")
        #expect(!Errno(rawValue: 123_456).description.isEmpty)
        #expect(Errno.wouldBlock == Errno(rawValue: EAGAIN))
    }

    @Test func currentReflectsTheLastFailure() {
        #expect(Glibc.close(-1) == -1)
        #expect(Errno.current == .badFile)
    }
}

@Suite struct FileTests {
    @Test func writeTextThenReadText() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("attr")
        // writeText writes to an existing file only (a sysfs attribute): no O_CREAT.
        #expect(throws: Errno.noEntry) { try FileSystem.writeText(path, "x") }
        #expect(!FileSystem.exists(path))

        _ = try FileDescriptor.open(path, [.writeOnly, .create])
        #expect(FileSystem.exists(path))
        try FileSystem.writeText(path, "1 2 3\nnormal ✓\n")
        #expect(try FileSystem.readText(path) == "1 2 3\nnormal ✓\n")

        // Larger than one read chunk.
        let long = String(repeating: "0123456789", count: 1000)
        let fd = try FileDescriptor.open(path, [.writeOnly, .truncate])
        try fd.writeAll(long)
        fd.close()
        #expect(try FileSystem.readText(path) == long)
        #expect(try FileSystem.readFile(path).count == 10_000)
    }

    @Test func readFileHonoursItsLimit() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("big")
        let fd = try FileDescriptor.open(path, [.writeOnly, .create])
        try fd.writeAll(String(repeating: "a", count: 10_000))
        fd.close()
        #expect(try FileSystem.readFile(path, limit: 10).count == 10)
        #expect(try FileSystem.readFile(path, limit: 5000).count == 5000)
        #expect(try FileSystem.readText(path, limit: 3) == "aaa")
    }

    @Test func readTextRepairsInvalidUTF8() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("bad")
        let fd = try FileDescriptor.open(path, [.writeOnly, .create])
        try fd.writeAll([0x61, 0xFF, 0x62])
        fd.close()
        #expect(try FileSystem.readText(path) == "a\u{FFFD}b")
    }

    @Test func readTextOfMissingFileThrowsNoEntry() {
        #expect(throws: Errno.noEntry) { try FileSystem.readText("/nonexistent/orientationd-test") }
    }

    @Test func isFIFODistinguishesFIFOsFromFiles() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fifo = dir.file("fifo")
        let plain = dir.file("plain")
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = try FileDescriptor.open(plain, [.writeOnly, .create])
        #expect(FileSystem.isFIFO(fifo))
        #expect(!FileSystem.isFIFO(plain))
        #expect(!FileSystem.isFIFO(dir.path))
        #expect(!FileSystem.isFIFO(dir.file("missing")))
    }
}

@Suite struct FileDescriptorTests {
    /// A file is regular, a pipe's ends are not (the replay sensor tells a file redirected
    /// to standard input from a stream by it); readAll reads either to its end.
    @Test func isRegularFileAndReadAll() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let plain = dir.file("plain")
        try FileDescriptor.open(plain, [.writeOnly, .create]).writeAll("0,0,-9.81,0\n")
        let file = try FileDescriptor.open(plain)
        #expect(try file.isRegularFile())
        #expect(try file.readAll(limit: 1 << 20) == Array("0,0,-9.81,0\n".utf8))
        let (r, w) = try FileDescriptor.pipe()
        #expect(try !r.isRegularFile() && !w.isRegularFile())
        try w.writeAll("abcdef")
        w.close()
        #expect(try r.readAll(limit: 4) == Array("abcd".utf8))
    }

    @Test func writeAllAndReadThroughAPipe() throws {
        let (r, w) = try FileDescriptor.pipe()
        // Larger than a single page, smaller than the pipe buffer (64 KiB).
        let payload = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try w.writeAll(payload)
        try w.writeAll("tail")
        w.close()
        #expect(!w.isOpen)
        w.close()  // idempotent

        var received: [UInt8] = []
        while true {
            let chunk = try readSome(r, max: 1000)
            if chunk.isEmpty { break }  // end of file: the write end is closed
            received += chunk
        }
        #expect(received == payload + Array("tail".utf8))
    }

    @Test func nonBlockingReadOfEmptyPipeThrowsWouldBlock() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { withExtendedLifetime(w) {} }  // an open write end: empty, not end of file
        try r.setNonBlocking()
        #expect(throws: Errno.wouldBlock) { _ = try readSome(r, max: 16) }
    }

    @Test func pipeEndsAreCloseOnExec() throws {
        let (r, w) = try FileDescriptor.pipe()
        #expect(fcntl(r.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(w.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func preadReadsAtAnOffset() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("data")
        let w = try FileDescriptor.open(path, [.writeOnly, .create])
        try w.writeAll("0123456789")
        let r = try FileDescriptor.open(path)
        var buffer = [UInt8](repeating: 0, count: 3)
        let n = try buffer.withUnsafeMutableBytes { raw in try r.read(at: 4, into: raw) }
        #expect(n == 3)
        #expect(buffer == Array("456".utf8))
    }

    @Test func openOfMissingFileThrowsNoEntry() {
        #expect(throws: Errno.noEntry) { try FileDescriptor.open("/nonexistent/x") }
    }

    @Test func releasingTheLastOwnerGivesTheReaderEndOfFile() throws {
        let r: FileDescriptor
        do {
            let pipe = try FileDescriptor.pipe()
            r = pipe.read
            // pipe.write is released at the end of this scope, which closes it.
        }
        #expect(try readSome(r, max: 4).isEmpty)
    }
}
