import Glibc
@_spi(Testing) @testable import Posix

/// A fresh temporary directory, removed (with its plain files and FIFOs) by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        let parent = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((parent + "/posix-tests-XXXXXX").utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "mkdtemp failed: \(Errno.current)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        for name in (try? FileSystem.list(path)) ?? [] { unlink(file(name)) }
        rmdir(path)
    }
}

/// Milliseconds from now on the monotonic clock.
func deadline(afterMs ms: Int64) -> Int64 { MonotonicClock.milliseconds() + ms }

/// One read of at most `max` bytes; empty at end of file.
func readSome(_ fd: FileDescriptor, max: Int) throws(Errno) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: max)
    let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try fd.read(into: raw) } }
    return Array(buffer[0..<(try result.get())])
}

/// Reads everything currently available from a non-blocking descriptor.
func drain(_ fd: FileDescriptor) -> [UInt8] {
    var result: [UInt8] = []
    while let chunk = try? readSome(fd, max: 4096), !chunk.isEmpty { result += chunk }
    return result
}

/// The descriptor number a Timer owns.
func descriptorNumber(of timer: Posix.Timer) -> Int32? { timer.descriptorNumber }
