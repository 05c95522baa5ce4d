import CLinux
import Glibc

/// A single-threaded epoll loop that owns the daemon's wake-ups.
///
/// Everything the daemon waits for is a descriptor in one epoll set: bus sockets,
/// timerfd timers, a signalfd, device nodes, the udev monitor. Between events the
/// process sleeps in `epoll_wait` with no timeout, so an idle daemon costs nothing.
/// Work that must run "soon but not re-entrantly" (D-Bus dispatch) is queued with
/// `post` and runs before the next wait.
///
/// Not thread-safe by design: create it, register everything and `run()` it on one
/// thread.
public final class EventLoop {
    public typealias IOHandler = (IOEvents) -> Void

    private struct Registration {
        var fd: Int32
        var events: IOEvents
        var handler: IOHandler
    }

    private let epoll: FileDescriptor
    /// Registrations by token. Tokens, not descriptors, travel through epoll so that a
    /// handler removing another source in the same batch can never misroute an event.
    private var registrations: [UInt64: Registration] = [:]
    private var tokenByFD: [Int32: UInt64] = [:]
    private var nextToken: UInt64 = 1
    private var posted: [() -> Void] = []
    private var exitCode: Int32?
    private var signalSource: SignalSource?
    private var handledSinceQuiet = true

    /// Called when `run()` is about to sleep with no timeout after it has handled
    /// something (and once after start): where a daemon gives back what a burst of work
    /// left behind. Work it posts runs before the loop sleeps.
    public var whenQuiet: (() -> Void)?

    public init() throws(Errno) {
        epoll = FileDescriptor(owning: try system_epoll_create().get())
    }

    // MARK: Descriptors

    /// Watches `fd` for `events`; error and hang-up are always reported. A descriptor
    /// can be registered once; register again after `remove`.
    public func add(fd: Int32, events: IOEvents, handler: @escaping IOHandler) throws(Errno) {
        precondition(tokenByFD[fd] == nil, "descriptor \(fd) registered twice")
        let token = nextToken
        nextToken += 1
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        try system_epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd, &event).get()
        registrations[token] = Registration(fd: fd, events: events, handler: handler)
        tokenByFD[fd] = token
    }

    /// Changes the conditions watched on a registered descriptor.
    public func modify(fd: Int32, events: IOEvents) throws(Errno) {
        guard let token = tokenByFD[fd], var registration = registrations[token] else { return }
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        try system_epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd, &event).get()
        registration.events = events
        registrations[token] = registration
    }

    /// Stops watching `fd`. Safe to call from a handler, and for unknown descriptors.
    public func remove(fd: Int32) {
        guard let token = tokenByFD.removeValue(forKey: fd) else { return }
        registrations[token] = nil
        var event = epoll_event()
        // The descriptor may already be closed; the kernel then dropped it by itself.
        _ = system_epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, &event)
    }

    public func isWatching(fd: Int32) -> Bool { tokenByFD[fd] != nil }

    // MARK: Deferred work and signals

    /// Runs `work` on the loop before it next sleeps.
    public func post(_ work: @escaping () -> Void) { posted.append(work) }

    /// Blocks `signals` for the process and delivers them to `handler` through a
    /// signalfd, so they arrive as ordinary events and never interrupt other code.
    public func handleSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(Errno) {
        let source = try SignalSource(signals: signals)
        try add(fd: source.descriptor.rawValue, events: .readable) { _ in
            for signal in source.drain() { handler(signal) }
        }
        signalSource = source
    }

    // MARK: Running

    /// Runs until `quit(_:)`; returns the code given there.
    public func run() -> Int32 {
        exitCode = nil
        while exitCode == nil {
            runPosted()
            if exitCode != nil { break }
            if posted.isEmpty, handledSinceQuiet, let whenQuiet {
                handledSinceQuiet = false
                whenQuiet()
                continue
            }
            if waitAndDispatch(timeoutMs: posted.isEmpty ? -1 : 0) > 0 { handledSinceQuiet = true }
        }
        return exitCode ?? 0
    }

    /// Runs the loop until `condition` holds or `deadlineMs` (monotonic) passes, for
    /// clients and tests that wait for something with a deadline. Returns the condition.
    @_spi(Testing) public func run(until deadlineMs: Int64, while condition: () -> Bool) -> Bool {
        while condition() {
            runPosted()
            if !condition() { break }
            let left = deadlineMs - MonotonicClock.milliseconds()
            if left <= 0 { return false }
            _ = waitAndDispatch(timeoutMs: posted.isEmpty ? Int32(clamping: left) : 0)
        }
        return true
    }

    // MARK: Driven from another main loop

    /// The epoll descriptor: readable whenever one of the loop's sources is ready
    /// (timers included, as they are timerfds). A GLib main loop (`g_unix_fd_add`), a Qt
    /// `QSocketNotifier` or another epoll set can watch it and call `dispatchPending()`.
    public var descriptor: Int32 { epoll.rawValue }

    /// Handles what is ready now, and the deferred work, without ever blocking; for a
    /// loop driven through `descriptor` by someone else's main loop. Returns when
    /// nothing is ready any more.
    public func dispatchPending() {
        repeat { runPosted() } while waitAndDispatch(timeoutMs: 0) > 0
        runPosted()
    }

    /// The one dispatch body: waits up to `timeoutMs` (-1: for ever) and hands each ready
    /// descriptor to its handler, stopping early once `quit` was called. Returns how many
    /// were ready (0 on EINTR: the caller looks again). The events live on the stack, so
    /// a handler that runs the loop again (re-entrantly) cannot overwrite them.
    private func waitAndDispatch(timeoutMs: Int32) -> Int {
        withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 32) { buffer in
            guard case .success(let count) = system_epoll_wait(epoll.rawValue, buffer, timeoutMs) else { return 0 }
            for index in 0..<count {
                let event = buffer[index]
                registrations[event.data.u64]?.handler(IOEvents(rawValue: event.events))
                if exitCode != nil { break }
            }
            return count
        }
    }

    /// Makes `run()` return `code` once the current handler finishes.
    public func quit(_ code: Int32 = 0) { exitCode = code }

    private func runPosted() {
        while !posted.isEmpty {
            let work = posted
            posted.removeAll()
            for item in work { item() }
        }
    }
}
