import CLinux
import Glibc

// One internal wrapper per C call, each returning a Result. Calls that can be
// interrupted by a signal are retried on EINTR on purpose: the daemon blocks its
// signals and takes them through signalfd, but a library or a debugger may still
// deliver one.

@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(_ value: T) -> Result<T, Errno> {
    value < 0 ? .failure(.current) : .success(value)
}

@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
    while true {
        let value = body()
        if value >= 0 { return .success(value) }
        let error = Errno.current
        if error != .interrupted { return .failure(error) }
    }
}

func system_open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, Errno> {
    retryingOnInterrupt { Glibc.open(path, flags | O_CLOEXEC, mode) }
}

func system_close(_ fd: Int32) -> Result<Void, Errno> {
    // Linux always releases the descriptor, even on EINTR: never retry close.
    Glibc.close(fd) < 0 ? .failure(.current) : .success(())
}

func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    retryingOnInterrupt { Glibc.read(fd, buffer.baseAddress, buffer.count) }
}

func system_pread(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: off_t) -> Result<Int, Errno> {
    retryingOnInterrupt { Glibc.pread(fd, buffer.baseAddress, buffer.count, offset) }
}

func system_write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    retryingOnInterrupt { Glibc.write(fd, buffer.baseAddress, buffer.count) }
}

func system_fsync(_ fd: Int32) -> Result<Void, Errno> {
    retryingOnInterrupt { Glibc.fsync(fd) }.map { _ in () }
}

func system_rename(_ from: String, _ to: String) -> Result<Void, Errno> {
    Glibc.rename(from, to) < 0 ? .failure(.current) : .success(())
}

func system_unlink(_ path: String) -> Result<Void, Errno> {
    Glibc.unlink(path) < 0 ? .failure(.current) : .success(())
}

func system_epoll_create() -> Result<Int32, Errno> {
    valueOrErrno(epoll_create1(Int32(EPOLL_CLOEXEC)))
}

func system_epoll_ctl(_ epfd: Int32, _ op: Int32, _ fd: Int32, _ event: inout epoll_event) -> Result<Void, Errno> {
    epoll_ctl(epfd, op, fd, &event) < 0 ? .failure(.current) : .success(())
}

func system_epoll_wait(_ epfd: Int32, _ events: UnsafeMutableBufferPointer<epoll_event>, _ timeoutMs: Int32) -> Result<Int, Errno> {
    // Not retried here: the loop treats EINTR as "nothing happened" and re-evaluates.
    valueOrErrno(Int(epoll_wait(epfd, events.baseAddress, Int32(events.count), timeoutMs)))
}

func system_timerfd_create() -> Result<Int32, Errno> {
    valueOrErrno(timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)))
}

func system_timerfd_settime(_ fd: Int32, _ spec: inout itimerspec) -> Result<Void, Errno> {
    timerfd_settime(fd, 0, &spec, nil) < 0 ? .failure(.current) : .success(())
}

/// A descriptor that becomes readable when the process ends (always close-on-exec).
func system_pidfd_open(_ pid: pid_t) -> Result<Int32, Errno> {
    valueOrErrno(pidfd_open(pid, 0))
}

func system_signalfd(_ mask: inout sigset_t) -> Result<Int32, Errno> {
    valueOrErrno(signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)))
}

func system_sigprocmask_block(_ mask: inout sigset_t) -> Result<Void, Errno> {
    let rc = pthread_sigmask(SIG_BLOCK, &mask, nil)
    return rc != 0 ? .failure(Errno(rawValue: rc)) : .success(())
}

func system_inotify_init() -> Result<Int32, Errno> {
    valueOrErrno(inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)))
}

func system_inotify_add_watch(_ fd: Int32, _ path: String, _ mask: UInt32) -> Result<Int32, Errno> {
    valueOrErrno(inotify_add_watch(fd, path, mask))
}

func system_ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Result<Int32, Errno> {
    retryingOnInterrupt { Glibc.ioctl(fd, request, argument) }
}

func system_pipe() -> Result<(Int32, Int32), Errno> {
    var fds: [Int32] = [-1, -1]
    return pipe2(&fds, O_CLOEXEC) < 0 ? .failure(.current) : .success((fds[0], fds[1]))
}

func system_dup(_ fd: Int32) -> Result<Int32, Errno> {
    valueOrErrno(fcntl(fd, F_DUPFD_CLOEXEC, 0))
}

func system_fstat(_ fd: Int32) -> Result<stat, Errno> {
    var info = stat()
    return fstat(fd, &info) < 0 ? .failure(.current) : .success(info)
}

func system_stat(_ path: String) -> Result<stat, Errno> {
    var info = stat()
    return stat(path, &info) < 0 ? .failure(.current) : .success(info)
}

/// The names in a directory, without "." and "..".
func system_list(_ path: String) -> Result<[String], Errno> {
    guard let directory = opendir(path) else { return .failure(.current) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        if name != ".", name != ".." { names.append(name) }
    }
    return .success(names)
}

func system_fcntl_setNonBlocking(_ fd: Int32) -> Result<Void, Errno> {
    let flags = fcntl(fd, F_GETFL)
    if flags < 0 { return .failure(.current) }
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ? .failure(.current) : .success(())
}
