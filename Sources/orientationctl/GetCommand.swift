import Arguments
import DBus
import OrientationAPI

/// `orientationctl get`: the manager's properties.
enum GetCommand {
    static let names = ManagerProperty.allCases.map(\.rawValue)

    static let command = Command(
        name: "orientationctl get",
        summary: "Print the sensor and the current orientation and tilt.",
        description: """
            Prints the manager's properties: the sensor and its gyroscope, the current orientation and tilt,
            the lock and the number of started clients. The sensor is read only while a
            client is started, so a plain get shows the last known values.
            """,
        groups: [OptionGroup("Options:", [Common.json, Common.help]), Common.busGroup],
        footer: "Exit status: 0 on success, 1 when the bus or the daemon cannot be reached, 2 on a usage error.")

    static func run(_ arguments: [String]) -> Int32 {
        var exit: Int32 = 0
        guard let parsed = Common.parse(command, arguments, exitStatus: &exit) else { return exit }
        let options = (bus: Common.bus(parsed), json: parsed.has(Common.json))
        let values: [(key: String, value: Value)]
        do {
            let connection = try Connection.open(options.bus)
            defer { connection.close() }
            let reply = try connection.call(try Message.methodCall(
                destination: OrientationAPI.busName, path: OrientationAPI.managerPath,
                interface: OrientationAPI.propertiesInterface, member: "GetAll",
                arguments: [.string(OrientationAPI.managerInterface)]))
            values = reply.arguments.first?.stringKeyedEntries ?? []
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        let byName = Dictionary(values.map { ($0.key, $0.value.unwrappedVariant) }, uniquingKeysWith: { a, _ in a })
        if options.json {
            Output.line(Output.json(names.compactMap { name in byName[name].map { (name, json($0)) } }))
        } else {
            for name in names {
                guard let value = byName[name] else { continue }
                Output.line("\(name): \(text(value))")
            }
        }
        return 0
    }

    static func text(_ value: Value) -> String {
        switch value {
        case .bool(let b): b ? "yes" : "no"
        case .string(let s): s.isEmpty ? "(none)" : s
        case .uint32(let u): String(u)
        default: String(describing: value)
        }
    }

    static func json(_ value: Value) -> String {
        switch value {
        case .bool(let b): b ? "true" : "false"
        case .string(let s): Output.quote(s)
        case .uint32(let u): String(u)
        default: Output.quote(String(describing: value))
        }
    }
}

/// A one-line explanation of a failed call, naming the bus.
func describe(_ error: BusError, bus: Connection.Bus) -> String {
    switch error.name {
    case OrientationAPI.MessageBus.serviceUnknown, OrientationAPI.MessageBus.nameHasNoOwner:
        "orientationd is not running on the \(bus)"
    case "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.BadAddress",
         "org.freedesktop.DBus.Error.NotSupported", "org.freedesktop.DBus.Error.Disconnected":
        "cannot connect to the \(bus): \(error.message)"
    default:
        error.message.isEmpty ? error.name : error.message
    }
}
