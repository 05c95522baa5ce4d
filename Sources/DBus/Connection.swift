import CDBus
import Posix

/// A private connection to a message bus, with one owner.
///
/// Private (not libdbus's shared per-process connection) so that nothing else in the
/// process can close it, and with exit-on-disconnect off: losing the bus is reported
/// through `onDisconnect`, never by libdbus calling `_exit`.
///
/// Either attach it to an `EventLoop` (daemons, the client library), or drive it
/// directly with `process(untilMs:while:)` (short-lived tools and tests).
public final class Connection {
    public enum Bus: Sendable, Equatable, CustomStringConvertible {
        case session, system
        case address(String)

        public var description: String {
            switch self {
            case .session: "session bus"
            case .system: "system bus"
            case .address(let address): "bus at \(address)"
            }
        }
    }

    let raw: OpaquePointer
    private let bridge: LoopBridge
    private var handlers: [(Message) -> Bool] = []
    private var closed = false

    /// The name the bus gave this connection (":1.42").
    public let uniqueName: String

    /// Called once when the bus connection is lost.
    public var onDisconnect: (() -> Void)?

    /// Connects and registers with the bus (the Hello call).
    public static func open(_ bus: Bus) throws(BusError) -> Connection {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw: OpaquePointer?
        switch bus {
        case .session: raw = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .system: raw = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let address):
            raw = dbus_connection_open_private(address, &error)
            if let raw, dbus_bus_register(raw, &error) == 0 {
                dbus_connection_close(raw)
                dbus_connection_unref(raw)
                throw BusError(from: error, fallback: "cannot register with the \(bus)")
            }
        }
        guard let raw else { throw BusError(from: error, fallback: "cannot connect to the \(bus)") }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        return Connection(raw: raw)
    }

    private init(raw: OpaquePointer) {
        self.raw = raw
        uniqueName = dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
        bridge = LoopBridge(raw: raw)
        bridge.connection = self
        let data = Unmanaged.passRetained(bridge).toOpaque()
        let added = dbus_connection_add_filter(raw, { _, message, data in
            guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let bridge = Unmanaged<LoopBridge>.fromOpaque(data).takeUnretainedValue()
            return bridge.connection?.deliver(message) == true
                ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }, data, { data in
            if let data { Unmanaged<LoopBridge>.fromOpaque(data).release() }
        })
        precondition(added != 0, "libdbus ran out of memory")
    }

    deinit { close() }

    /// Closes the connection. Further sends are dropped.
    public func close() {
        guard !closed else { return }
        closed = true
        bridge.detach()
        bridge.connection = nil
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    public var isConnected: Bool { !closed && dbus_connection_get_is_connected(raw) != 0 }

    // MARK: Event loop

    /// Lets `loop` drive this connection: its socket and timeouts become loop sources and
    /// incoming messages are dispatched from the loop.
    public func attach(to loop: EventLoop) { bridge.attach(to: loop) }

    /// Without an event loop: reads, writes and dispatches until `condition` is false or
    /// `deadlineMs` (monotonic) passes. Returns whether the condition was met.
    @discardableResult
    @_spi(Testing) public func process(untilMs deadlineMs: Int64, while condition: () -> Bool) -> Bool {
        while condition() {
            let left = deadlineMs - MonotonicClock.milliseconds()
            if left <= 0 || !isConnected { return !condition() }
            if dbus_connection_read_write_dispatch(raw, Int32(clamping: min(left, 100))) == 0 { return !condition() }
        }
        return true
    }

    /// Without an event loop: runs the handlers for every message already received
    /// (for instance signals that arrived while a blocking `call` waited for its reply).
    @_spi(Testing) public func dispatchQueued() {
        guard !closed else { return }
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    // MARK: Incoming messages

    /// Adds a handler for incoming messages; it returns true when it consumed the message.
    /// Handlers run in the order they were added, for the connection's life.
    public func addHandler(_ handler: @escaping (Message) -> Bool) {
        handlers.append(handler)
    }

    fileprivate func deliver(_ raw: OpaquePointer) -> Bool {
        let message = Message(owning: dbus_message_ref(raw))
        if message.kind == .signal, message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
            let callback = onDisconnect
            onDisconnect = nil
            callback?()
            return true
        }
        for handler in handlers where handler(message) { return true }
        return false
    }

    // MARK: Sending

    /// Queues `message` for sending; it goes out as soon as the socket takes it.
    public func send(_ message: Message) {
        // libdbus queues messages even on a lost connection; dropping them here keeps a
        // daemon that lost its bus from piling up work before it sees the Disconnected.
        guard isConnected else { return }
        _ = dbus_connection_send(raw, message.raw, nil)
    }

    /// Blocks until everything queued has been written.
    public func flush() {
        if !closed { dbus_connection_flush(raw) }
    }

    /// Calls a method and waits for its reply. An error reply is thrown.
    public func call(_ message: Message, timeoutMs: Int32 = 25_000) throws(BusError) -> Message {
        guard !closed else { throw .failed("connection closed") }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMs, &error) else {
            throw BusError(from: error, fallback: "no reply")
        }
        return Message(owning: reply)
    }

    /// Calls a method without blocking; `completion` runs on the loop with the reply or
    /// the error (an error reply, a timeout, or a lost connection).
    public func callAsync(_ message: Message, timeoutMs: Int32 = 25_000, completion: @escaping (Result<Message, BusError>) -> Void) {
        var pending: OpaquePointer?
        guard !closed, dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMs) != 0, let pending else {
            completion(.failure(.failed("not connected to the bus")))
            return
        }
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        dbus_pending_call_set_notify(pending, { pending, data in
            guard let pending, let data else { return }
            let box = Unmanaged<CompletionBox>.fromOpaque(data).takeUnretainedValue()
            guard let raw = dbus_pending_call_steal_reply(pending) else {
                box.completion(.failure(.failed("no reply")))
                return
            }
            let reply = Message(owning: raw)
            if let error = reply.error { box.completion(.failure(error)) } else { box.completion(.success(reply)) }
        }, box, { data in
            if let data { Unmanaged<CompletionBox>.fromOpaque(data).release() }
        })
        dbus_pending_call_unref(pending)
    }

    // MARK: Bus driver

    public enum RequestNameReply: Sendable, Equatable { case primaryOwner, inQueue, exists, alreadyOwner }

    /// Asks for a well-known name, without queueing or replacing.
    public func requestName(_ name: String) throws(BusError) -> RequestNameReply {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let result = dbus_bus_request_name(raw, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        if dbus_error_is_set(&error) != 0 || result < 0 { throw BusError(from: error, fallback: "cannot own \(name)") }
        switch result {
        case 1: return .primaryOwner
        case 2: return .inQueue
        case 3: return .exists
        default: return .alreadyOwner
        }
    }

    /// Adds a match rule so the bus routes matching signals to this connection.
    public func addMatch(_ rule: String) throws(BusError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(raw, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw BusError(from: error, fallback: "cannot add match \(rule)") }
    }
}

/// Holds a completion callback for libdbus's user-data pointer.
private final class CompletionBox {
    let completion: (Result<Message, BusError>) -> Void
    init(_ completion: @escaping (Result<Message, BusError>) -> Void) { self.completion = completion }
}

extension BusError {
    init(from error: DBusError, fallback: String) {
        var copy = error
        if dbus_error_is_set(&copy) != 0, let name = error.name {
            self.init(String(cString: name), error.message.map { String(cString: $0) } ?? fallback)
        } else {
            self.init("org.freedesktop.DBus.Error.Failed", fallback)
        }
    }
}
