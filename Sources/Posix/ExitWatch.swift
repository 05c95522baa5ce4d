import CLinux
import Glibc

/// Tells, on an event loop, when a child (started by ``Subprocess/start``) ends: its pidfd
/// becomes readable, the child is reaped and `onExit` gets its status. The one owner of
/// the pidfd; released with the watch, whether or not the child has ended (a program left
/// running is not waited for).
///
/// So that a long-running command does not block the loop: `orientationctl follow --exec`
/// runs its command while the loop goes on answering signals and the bus.
public final class ExitWatch {
    public let pid: pid_t
    private let loop: EventLoop
    private let descriptor: FileDescriptor

    public init(pid: pid_t, loop: EventLoop, onExit: @escaping (Int32) -> Void) throws(Errno) {
        self.pid = pid
        self.loop = loop
        descriptor = FileDescriptor(owning: try system_pidfd_open(pid).get())
        let fd = descriptor.rawValue
        try loop.add(fd: fd, events: .readable) { [weak loop] _ in
            loop?.remove(fd: fd)
            onExit(Subprocess.wait(pid))
        }
    }

    deinit {
        if loop.isWatching(fd: descriptor.rawValue) { loop.remove(fd: descriptor.rawValue) }
    }
}
