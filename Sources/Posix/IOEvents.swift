import CLinux

/// Readiness conditions of a descriptor, as epoll reports them.
public struct IOEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: EPOLLIN.rawValue)
    public static let writable = IOEvents(rawValue: EPOLLOUT.rawValue)
    public static let error = IOEvents(rawValue: EPOLLERR.rawValue)
    public static let hangup = IOEvents(rawValue: EPOLLHUP.rawValue)
    public static let priority = IOEvents(rawValue: EPOLLPRI.rawValue)
}
