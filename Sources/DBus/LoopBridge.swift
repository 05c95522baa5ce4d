import CDBus
import Posix

/// Connects libdbus's watches, timeouts and dispatch status to an `EventLoop`.
///
/// libdbus keeps a retained pointer to this object (released through its free hooks),
/// so callbacks that arrive while the connection is being closed never touch a
/// half-destroyed `Connection`.
final class LoopBridge {
    private let raw: OpaquePointer
    weak var connection: Connection?
    private weak var loop: EventLoop?
    /// libdbus may hand out a read watch and a write watch on the same descriptor; epoll
    /// takes one registration per descriptor, so they are merged here.
    private var watchesByFD: [Int32: [OpaquePointer]] = [:]
    private var timers: [OpaquePointer: Posix.Timer] = [:]
    private var dispatchPosted = false

    init(raw: OpaquePointer) { self.raw = raw }

    func attach(to loop: EventLoop) {
        self.loop = loop
        let data = Unmanaged.passUnretained(self).toOpaque()
        // Each set_* call holds its own retain, released by libdbus through the free hook.
        _ = Unmanaged.passRetained(self)
        var ok = dbus_connection_set_watch_functions(raw, { watch, data in
            LoopBridge.from(data).watchChanged(watch, adding: true)
        }, { watch, data in
            _ = LoopBridge.from(data).watchChanged(watch, removing: true)
        }, { watch, data in
            _ = LoopBridge.from(data).watchChanged(watch)
        }, data, { data in
            if let data { Unmanaged<LoopBridge>.fromOpaque(data).release() }
        })
        precondition(ok != 0, "libdbus ran out of memory")
        _ = Unmanaged.passRetained(self)
        ok = dbus_connection_set_timeout_functions(raw, { timeout, data in
            LoopBridge.from(data).timeoutChanged(timeout, adding: true)
        }, { timeout, data in
            _ = LoopBridge.from(data).timeoutChanged(timeout, removing: true)
        }, { timeout, data in
            _ = LoopBridge.from(data).timeoutChanged(timeout)
        }, data, { data in
            if let data { Unmanaged<LoopBridge>.fromOpaque(data).release() }
        })
        precondition(ok != 0, "libdbus ran out of memory")
        _ = Unmanaged.passRetained(self)
        dbus_connection_set_dispatch_status_function(raw, { _, status, data in
            if status == DBUS_DISPATCH_DATA_REMAINS { LoopBridge.from(data).scheduleDispatch() }
        }, data, { data in
            if let data { Unmanaged<LoopBridge>.fromOpaque(data).release() }
        })
        // Messages may have arrived during the blocking calls made before attaching.
        scheduleDispatch()
    }

    /// Removes every loop source; called before the connection is closed.
    func detach() {
        guard loop != nil else { return }
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        for fd in watchesByFD.keys { loop?.remove(fd: fd) }
        watchesByFD.removeAll()
        timers.removeAll()
        loop = nil
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> LoopBridge {
        Unmanaged<LoopBridge>.fromOpaque(data!).takeUnretainedValue()
    }

    // MARK: Watches

    private func watchChanged(_ watch: OpaquePointer?, adding: Bool = false, removing: Bool = false) -> dbus_bool_t {
        guard let watch, let loop else { return adding ? 0 : 1 }
        let fd = dbus_watch_get_unix_fd(watch)
        var list = watchesByFD[fd] ?? []
        if adding, !list.contains(watch) { list.append(watch) }
        if removing { list.removeAll { $0 == watch } }
        watchesByFD[fd] = list.isEmpty ? nil : list

        var events: IOEvents = []
        for w in list where dbus_watch_get_enabled(w) != 0 {
            let flags = dbus_watch_get_flags(w)
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events.insert(.readable) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events.insert(.writable) }
        }
        if list.isEmpty {
            loop.remove(fd: fd)
        } else if loop.isWatching(fd: fd) {
            try? loop.modify(fd: fd, events: events)
        } else {
            do {
                try loop.add(fd: fd, events: events) { [weak self] ready in self?.handle(fd: fd, ready) }
            } catch {
                return 0
            }
        }
        return 1
    }

    private func handle(fd: Int32, _ ready: IOEvents) {
        // dbus_watch_handle may add or remove watches: iterate over a copy.
        for watch in watchesByFD[fd] ?? [] where dbus_watch_get_enabled(watch) != 0 {
            guard watchesByFD[fd]?.contains(watch) == true else { continue }
            let wanted = dbus_watch_get_flags(watch)
            var flags: UInt32 = 0
            if ready.contains(.readable), wanted & DBUS_WATCH_READABLE.rawValue != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if ready.contains(.writable), wanted & DBUS_WATCH_WRITABLE.rawValue != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if ready.contains(.hangup) { flags |= DBUS_WATCH_HANGUP.rawValue }
            if flags != 0 { _ = dbus_watch_handle(watch, flags) }
        }
        scheduleDispatch()
    }

    // MARK: Timeouts

    private func timeoutChanged(_ timeout: OpaquePointer?, adding: Bool = false, removing: Bool = false) -> dbus_bool_t {
        guard let timeout, let loop else { return adding ? 0 : 1 }
        if removing {
            timers[timeout] = nil
            return 1
        }
        if timers[timeout] == nil {
            guard let timer = try? Posix.Timer(loop: loop, handler: { [weak self] in
                guard self?.timers[timeout] != nil else { return }
                _ = dbus_timeout_handle(timeout)
                self?.scheduleDispatch()
            }) else { return 0 }
            timers[timeout] = timer
        }
        if dbus_timeout_get_enabled(timeout) != 0 {
            let interval = Int64(dbus_timeout_get_interval(timeout))
            timers[timeout]?.arm(afterMs: interval, intervalMs: interval)
        } else {
            timers[timeout]?.disarm()
        }
        return 1
    }

    // MARK: Dispatch

    private func scheduleDispatch() {
        guard !dispatchPosted, let loop else { return }
        dispatchPosted = true
        loop.post { [weak self] in
            guard let self else { return }
            self.dispatchPosted = false
            // Bounded per turn so one busy peer cannot starve the other sources.
            var budget = 64
            while budget > 0, dbus_connection_dispatch(self.raw) == DBUS_DISPATCH_DATA_REMAINS { budget -= 1 }
            if budget == 0 { self.scheduleDispatch() }
        }
    }
}
