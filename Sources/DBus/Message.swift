import CDBus

/// A D-Bus message with one owner: it holds one libdbus reference and drops it when
/// released.
public final class Message {
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal, invalid
    }

    let raw: OpaquePointer

    /// Takes over one reference to `raw`.
    init(owning raw: OpaquePointer) { self.raw = raw }

    deinit { dbus_message_unref(raw) }

    // MARK: Making messages

    /// A method call. Names are checked by libdbus's validators first: an invalid name
    /// is reported, not trapped on.
    public static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [Value] = []
    ) throws(BusError) -> Message {
        if let destination, dbus_validate_bus_name(destination, nil) == 0 { throw .invalidArgs("'\(destination)' is not a valid bus name") }
        guard dbus_validate_path(path, nil) != 0 else { throw .invalidArgs("'\(path)' is not a valid object path") }
        if let interface, dbus_validate_interface(interface, nil) == 0 { throw .invalidArgs("'\(interface)' is not a valid interface name") }
        guard dbus_validate_member(member, nil) != 0 else { throw .invalidArgs("'\(member)' is not a valid member name") }
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else { throw .noMemory() }
        let message = Message(owning: raw)
        try message.append(arguments)
        return message
    }

    /// A signal. `destination` makes it a unicast signal (only that peer receives it).
    public static func signal(
        path: String, interface: String, member: String, arguments: [Value] = [], destination: String? = nil
    ) throws(BusError) -> Message {
        guard dbus_validate_path(path, nil) != 0 else { throw .invalidArgs("'\(path)' is not a valid object path") }
        guard dbus_validate_interface(interface, nil) != 0 else { throw .invalidArgs("'\(interface)' is not a valid interface name") }
        guard dbus_validate_member(member, nil) != 0 else { throw .invalidArgs("'\(member)' is not a valid member name") }
        guard let raw = dbus_message_new_signal(path, interface, member) else { throw .noMemory() }
        let message = Message(owning: raw)
        if let destination {
            guard dbus_validate_bus_name(destination, nil) != 0 else { throw .invalidArgs("'\(destination)' is not a valid bus name") }
            dbus_message_set_destination(raw, destination)
        }
        try message.append(arguments)
        return message
    }

    /// A signal to be sent from many objects through ``copy(path:destination:)``, never
    /// itself: built once, with no object path. (libdbus rewrites the header for every
    /// top-level argument appended, and giving a field that is there a new value rewrites
    /// and realigns the header again, where a field that is not there is appended: the
    /// path-less header makes each copy's path an append.) Internal: a signal without
    /// a path is no valid D-Bus message (the specification requires one), so only
    /// ``ObjectTree`` keeps templates, and it never sends one.
    static func signalTemplate(interface: String, member: String, arguments: [Value]) throws(BusError) -> Message {
        let message = try signal(path: "/", interface: interface, member: member, arguments: arguments)
        guard dbus_message_set_path(message.raw, nil) != 0 else { throw .noMemory() }
        return message
    }

    /// This signal for another object and recipient: the same interface, member and
    /// arguments, copied rather than marshalled again (a fan-out sends one signal to
    /// thousands of clients). Cheapest from a ``signalTemplate(interface:member:arguments:)``.
    public func copy(path: String, destination: String?) throws(BusError) -> Message {
        guard dbus_validate_path(path, nil) != 0 else { throw .invalidArgs("'\(path)' is not a valid object path") }
        if let destination, dbus_validate_bus_name(destination, nil) == 0 {
            throw .invalidArgs("'\(destination)' is not a valid bus name")
        }
        guard let copied = dbus_message_copy(raw) else { throw .noMemory() }
        let message = Message(owning: copied)
        guard dbus_message_set_path(copied, path) != 0, dbus_message_set_destination(copied, destination) != 0 else {
            throw .noMemory()
        }
        return message
    }

    /// The successful reply to this method call.
    public func makeReply(_ arguments: [Value] = []) throws(BusError) -> Message {
        guard let reply = dbus_message_new_method_return(raw) else { throw .noMemory() }
        let message = Message(owning: reply)
        try message.append(arguments)
        return message
    }

    /// The error reply to this method call.
    public func makeErrorReply(_ error: BusError) -> Message {
        // An invalid error name would make libdbus fail; fall back to a generic one.
        let name = dbus_validate_error_name(error.name, nil) != 0 ? error.name : "org.freedesktop.DBus.Error.Failed"
        let text = error.message.utf8.contains(0) ? String(error.message.split(separator: "\0").first ?? "") : error.message
        guard let reply = dbus_message_new_error(raw, name, text) else { fatalError("libdbus ran out of memory") }
        return Message(owning: reply)
    }

    // MARK: Body

    public func append(_ values: [Value]) throws(BusError) {
        if !values.isEmpty { try MessageWriter.append(values, to: raw) }
    }

    /// The body, decoded.
    public var arguments: [Value] { MessageReader.read(raw) }

    // MARK: Header

    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case 1: .methodCall
        case 2: .methodReturn
        case 3: .error
        case 4: .signal
        default: .invalid
        }
    }

    public var path: String? { optionalString(dbus_message_get_path(raw)) }
    public var interface: String? { optionalString(dbus_message_get_interface(raw)) }
    public var member: String? { optionalString(dbus_message_get_member(raw)) }
    public var sender: String? { optionalString(dbus_message_get_sender(raw)) }
    public var destination: String? { optionalString(dbus_message_get_destination(raw)) }
    public var errorName: String? { optionalString(dbus_message_get_error_name(raw)) }
    public var signature: String { optionalString(dbus_message_get_signature(raw)) ?? "" }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    public var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// For an error message: the error it carries (name and first string argument).
    public var error: BusError? {
        guard kind == .error, let name = errorName else { return nil }
        let text = arguments.first?.stringValue ?? ""
        return BusError(name, text)
    }

    private func optionalString(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
