import Glibc

/// A POSIX error number, as returned by a failed system call.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noEntry = Errno(rawValue: ENOENT)
    public static let noDevice = Errno(rawValue: ENODEV)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let badFile = Errno(rawValue: EBADF)
    public static let notPermitted = Errno(rawValue: EPERM)

    /// The C library's message for this error ("No such file or directory").
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        // Swift sees the XSI strerror_r, which fills the buffer and returns 0.
        guard strerror_r(rawValue, &buffer, buffer.count) == 0 else { return "errno \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
