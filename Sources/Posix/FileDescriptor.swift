import Glibc

/// An open file descriptor with a single owner: it is closed exactly once, by `close()`
/// or when the owner is released.
///
/// A class rather than a value so that a descriptor can be shared with the event loop's
/// handlers without anyone closing it twice.
public final class FileDescriptor {
    public private(set) var rawValue: Int32
    private let owned: Bool

    /// Takes ownership of `rawValue`.
    public init(owning rawValue: Int32) {
        self.rawValue = rawValue
        owned = true
    }

    /// Uses `rawValue` without owning it: never closed by this object (the standard
    /// streams).
    public init(borrowing rawValue: Int32) {
        self.rawValue = rawValue
        owned = false
    }

    deinit { if owned, rawValue >= 0 { _ = system_close(rawValue) } }

    public static var standardInput: FileDescriptor { FileDescriptor(borrowing: 0) }
    public static var standardOutput: FileDescriptor { FileDescriptor(borrowing: 1) }
    public static var standardError: FileDescriptor { FileDescriptor(borrowing: 2) }

    public var isOpen: Bool { rawValue >= 0 }

    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let readOnly = OpenFlags(rawValue: O_RDONLY)
        public static let writeOnly = OpenFlags(rawValue: O_WRONLY)
        public static let readWrite = OpenFlags(rawValue: O_RDWR)
        public static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
        public static let create = OpenFlags(rawValue: O_CREAT)
        public static let truncate = OpenFlags(rawValue: O_TRUNC)
    }

    /// Opens `path` with close-on-exec always set.
    public static func open(_ path: String, _ flags: OpenFlags = .readOnly, mode: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try system_open(path, flags.rawValue, mode).get())
    }

    /// Makes a close-on-exec pipe: (read end, write end).
    public static func pipe() throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        let (r, w) = try system_pipe().get()
        return (FileDescriptor(owning: r), FileDescriptor(owning: w))
    }

    public func close() {
        if owned, rawValue >= 0 { _ = system_close(rawValue) }
        rawValue = -1
    }

    /// A close-on-exec duplicate, owned.
    public func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try system_dup(rawValue).get())
    }

    /// How many names the open file still has (0: it was unlinked or replaced).
    public func linkCount() throws(Errno) -> Int {
        Int(try system_fstat(rawValue).get().st_nlink)
    }

    /// Whether it is a regular file (not a pipe, a FIFO, a socket or a device): one that
    /// epoll cannot watch, and that holds all it will ever hold.
    public func isRegularFile() throws(Errno) -> Bool {
        (try system_fstat(rawValue).get().st_mode & S_IFMT) == S_IFREG
    }

    /// Reads to the end (at most `limit` bytes).
    public func readAll(limit: Int) throws(Errno) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while result.count < limit {
            let wanted = min(chunk.count, limit - result.count)
            // withUnsafeMutableBytes rethrows untyped: the read's result is taken out first.
            let n = try chunk.withUnsafeMutableBytes { raw in
                system_read(rawValue, UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]))
            }.get()
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    public func setNonBlocking() throws(Errno) { try system_fcntl_setNonBlocking(rawValue).get() }

    /// Reads at most `buffer.count` bytes; 0 means end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try system_read(rawValue, buffer).get()
    }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try system_pread(rawValue, buffer, off_t(offset)).get()
    }

    /// Writes all of `bytes`, looping over short writes.
    public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let result = array.withUnsafeBytes { raw in
                system_write(rawValue, UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            offset += try result.get()
        }
    }

    public func writeAll(_ string: String) throws(Errno) { try writeAll(Array(string.utf8)) }

    /// How `drain` stopped.
    public enum DrainEnd: Equatable, Sendable {
        /// Nothing more to read for now (a non-blocking descriptor said EAGAIN).
        case wouldBlock
        case endOfFile
        case failed(Errno)
        /// The chunk handler asked to stop.
        case stopped
    }

    /// Reads a non-blocking descriptor until it has nothing more, handing each chunk of
    /// at most `chunkSize` bytes to `body`, which returns false to stop early (when it
    /// closed the source, say). Returns how it ended and whether anything was read.
    public func drain(chunkSize: Int, _ body: (ArraySlice<UInt8>) -> Bool) -> (end: DrainEnd, readAnything: Bool) {
        var chunk = [UInt8](repeating: 0, count: max(chunkSize, 1))
        var readAnything = false
        while true {
            let result = chunk.withUnsafeMutableBytes { raw in system_read(rawValue, raw) }
            switch result {
            case .success(0):
                return (.endOfFile, readAnything)
            case .success(let count):
                readAnything = true
                if !body(chunk[0..<count]) { return (.stopped, readAnything) }
            case .failure(let error):
                return (error == .wouldBlock ? .wouldBlock : .failed(error), readAnything)
            }
        }
    }

    public func ioctl(_ request: UInt, _ argument: UnsafeMutableRawPointer) throws(Errno) -> Int32 {
        try system_ioctl(rawValue, request, argument).get()
    }
}
