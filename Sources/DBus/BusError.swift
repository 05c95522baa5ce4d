/// A D-Bus error: a well-known error name and a human-readable message. Used both for
/// failures of local calls into libdbus and for error replies sent to or received from
/// peers.
public struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    // The standard names of the D-Bus specification.
    public static func invalidArgs(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.InvalidArgs", message) }
    public static func accessDenied(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.AccessDenied", message) }
    public static func unknownMethod(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.UnknownMethod", message) }
    public static func unknownObject(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.UnknownObject", message) }
    public static func unknownInterface(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.UnknownInterface", message) }
    public static func unknownProperty(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.UnknownProperty", message) }
    public static func propertyReadOnly(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.PropertyReadOnly", message) }
    public static func failed(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.Failed", message) }
    public static func noMemory() -> BusError { BusError("org.freedesktop.DBus.Error.NoMemory", "out of memory") }
}
