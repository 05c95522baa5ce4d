/// The shape of an interface, without behaviour: what introspection prints.
public struct InterfaceDescription: Sendable, Equatable {
    public struct Method: Sendable, Equatable {
        public var name: String
        public var inputs: [Argument]
        public var outputs: [Argument]
        public var doc: String
    }

    public struct Property: Sendable, Equatable {
        public var name: String
        public var signature: String
        public var writable: Bool
        public var flags: PropertyFlags
        public var doc: String
    }

    public struct Signal: Sendable, Equatable {
        public var name: String
        public var arguments: [Argument]
        public var doc: String
    }

    public var name: String
    public var doc: String
    public var methods: [Method]
    public var properties: [Property]
    public var signals: [Signal]

    /// org.freedesktop.DBus.Introspectable, served by the object tree for every node.
    public static let introspectable = InterfaceDescription(
        name: "org.freedesktop.DBus.Introspectable", doc: "",
        methods: [.init(name: "Introspect", inputs: [], outputs: [Argument("xml_data", "s")], doc: "")],
        properties: [], signals: [])

    /// org.freedesktop.DBus.Peer, served by the object tree for every node.
    public static let peer = InterfaceDescription(
        name: "org.freedesktop.DBus.Peer", doc: "",
        methods: [
            .init(name: "Ping", inputs: [], outputs: [], doc: ""),
            .init(name: "GetMachineId", inputs: [], outputs: [Argument("machine_uuid", "s")], doc: ""),
        ],
        properties: [], signals: [])

    /// org.freedesktop.DBus.Properties, served by the object tree for exported objects.
    public static let properties = InterfaceDescription(
        name: "org.freedesktop.DBus.Properties", doc: "",
        methods: [
            .init(name: "Get", inputs: [Argument("interface_name", "s"), Argument("property_name", "s")],
                  outputs: [Argument("value", "v")], doc: ""),
            .init(name: "GetAll", inputs: [Argument("interface_name", "s")],
                  outputs: [Argument("props", "a{sv}")], doc: ""),
            .init(name: "Set", inputs: [Argument("interface_name", "s"), Argument("property_name", "s"), Argument("value", "v")],
                  outputs: [], doc: ""),
        ],
        properties: [],
        signals: [.init(name: "PropertiesChanged",
                        arguments: [Argument("interface_name", "s"), Argument("changed_properties", "a{sv}"),
                                    Argument("invalidated_properties", "as")], doc: "")])
}
