import CDBus

/// The objects a connection exports, and the routing of method calls to them.
///
/// Serves, for every exported object, the table-declared interfaces plus
/// org.freedesktop.DBus.Properties, Introspectable and Peer; and Introspectable and
/// Peer for the intermediate nodes of the path hierarchy, so that `busctl tree` and
/// `gdbus introspect --recurse` can walk down from "/".
public final class ObjectTree {
    private let connection: Connection
    private var objects: [String: [BoundInterface]] = [:]
    /// The last few signals built, never sent themselves: one with the same interface,
    /// member and arguments is copied for another object and recipient.
    private var signalTemplates: [(interface: String, name: String, arguments: [Value], message: Message)] = []
    private static let signalTemplateCount = 8

    public init(connection: Connection) {
        self.connection = connection
        connection.addHandler { [weak self] message in
            guard let self, message.kind == .methodCall else { return false }
            self.handle(message)
            return true
        }
    }

    public func export(path: String, interfaces: [BoundInterface]) {
        precondition(dbus_validate_path(path, nil) != 0, "invalid object path \(path)")
        objects[path] = interfaces
    }

    public func unexport(path: String) { objects[path] = nil }

    @_spi(Testing) public func isExported(_ path: String) -> Bool { objects[path] != nil }

    // MARK: Emitting

    /// Sends a signal from `path`; `destination` makes it unicast.
    public func emitSignal(path: String, interface: String, name: String, arguments: [Value], destination: String? = nil) {
        guard connection.isConnected else { return }
        do {
            connection.send(try signalTemplate(interface: interface, name: name, arguments: arguments)
                .copy(path: path, destination: destination))
        } catch {
            preconditionFailure("signal \(interface).\(name) could not be built: \(error)")
        }
    }

    /// A signal with these contents, marshalled once: the clients of a rotation are sent
    /// the same few signals, each from its own object (copies took the daemon 100 ms of CPU
    /// for a rotation sent to 4096 clients, where building each took 180).
    private func signalTemplate(interface: String, name: String, arguments: [Value]) throws(BusError) -> Message {
        if let found = signalTemplates.first(where: { $0.name == name && $0.interface == interface && $0.arguments == arguments }) {
            return found.message
        }
        let message = try Message.signalTemplate(interface: interface, member: name, arguments: arguments)
        if signalTemplates.count == Self.signalTemplateCount { signalTemplates.removeFirst() }
        signalTemplates.append((interface, name, arguments, message))
        return message
    }

    /// Announces that `names` of `interface` on `path` changed, with their current values
    /// (or by name, for properties flagged `emitsInvalidation`).
    public func emitPropertiesChanged(path: String, interface: String, names: [String], destination: String? = nil) {
        guard connection.isConnected else { return }
        guard let bound = objects[path]?.first(where: { $0.description.name == interface }) else { return }
        var changed: [(String, Value)] = []
        var invalidated: [String] = []
        for name in names {
            guard let property = bound.description.properties.first(where: { $0.name == name }) else { continue }
            if property.flags.contains(.emitsInvalidation) {
                invalidated.append(name)
            } else if property.flags.contains(.emitsChange), let value = bound.get(name) {
                changed.append((name, value))
            }
        }
        guard !changed.isEmpty || !invalidated.isEmpty else { return }
        emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
                   arguments: [.string(interface), .vardict(changed), .strings(invalidated)],
                   destination: destination)
    }

    // MARK: Routing

    private func handle(_ message: Message) {
        let call = MethodCall(message: message, connection: connection)
        do {
            switch try route(call) {
            case .values(let values): call.reply(values)
            case .later: break
            }
        } catch {
            call.fail(error)
        }
    }

    private func route(_ call: MethodCall) throws(BusError) -> MethodCall.Reply {
        let message = call.message
        let path = message.path ?? "/"
        let member = message.member ?? ""
        let interface = message.interface
        let bound = objects[path]
        // Intermediate nodes exist only as parents of exported objects. Listing children
        // walks every object, so it is done only for such nodes and for Introspect.
        guard bound != nil || hasDescendants(path) else { throw .unknownObject("No object at path \(path)") }

        switch (interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"), (nil, "Introspect"):
            try expect(message, "")
            var descriptions = [InterfaceDescription.peer, .introspectable]
            if let bound { descriptions += [.properties] + bound.map(\.description) }
            return .values([.string(Introspection.xml(interfaces: descriptions, children: childNames(of: path)))])
        case ("org.freedesktop.DBus.Peer", "Ping"), (nil, "Ping"):
            try expect(message, "")
            return .empty
        case ("org.freedesktop.DBus.Peer", "GetMachineId"), (nil, "GetMachineId"):
            try expect(message, "")
            guard let id = dbus_try_get_local_machine_id(nil) else { throw .failed("no machine id") }
            defer { dbus_free(id) }
            return .values([.string(String(cString: id))])
        default:
            break
        }

        // Every node has Introspectable and Peer (its Introspect lists them): an unknown
        // member there is an unknown method, not an unknown interface.
        if let interface, interface == "org.freedesktop.DBus.Introspectable" || interface == "org.freedesktop.DBus.Peer" {
            throw .unknownMethod("\(interface) has no method \(member)")
        }
        guard let bound else {
            throw interface.map { .unknownInterface("No interface \($0) at path \(path)") }
                ?? .unknownMethod("No method \(member) at path \(path)")
        }
        if interface == "org.freedesktop.DBus.Properties" || (interface == nil && ["Get", "GetAll", "Set"].contains(member)) {
            return try properties(call, member: member, bound: bound, path: path)
        }
        for candidate in bound where interface == nil || candidate.description.name == interface {
            if let reply = try candidate.call(member, call) { return reply }
            if interface != nil { throw .unknownMethod("\(candidate.description.name) has no method \(member)") }
        }
        if let interface { throw .unknownInterface("No interface \(interface) at path \(path)") }
        throw .unknownMethod("No method \(member) at path \(path)")
    }

    private func properties(_ call: MethodCall, member: String, bound: [BoundInterface], path: String) throws(BusError) -> MethodCall.Reply {
        let args = call.arguments
        func find(_ name: String) throws(BusError) -> BoundInterface {
            guard let match = bound.first(where: { $0.description.name == name }) else {
                throw .unknownInterface("No interface \(name) at path \(path)")
            }
            return match
        }
        switch member {
        case "Get":
            try expect(call.message, "ss")
            let (interfaceName, name) = (args[0].stringValue ?? "", args[1].stringValue ?? "")
            let target = try find(interfaceName)
            guard let value = target.get(name) else { throw .unknownProperty("\(interfaceName) has no property \(name)") }
            return .values([.variant(value)])
        case "GetAll":
            try expect(call.message, "s")
            let interfaceName = args[0].stringValue ?? ""
            let targets = interfaceName.isEmpty ? bound : [try find(interfaceName)]
            var pairs: [(String, Value)] = []
            for target in targets {
                for property in target.description.properties {
                    if let value = target.get(property.name) { pairs.append((property.name, value)) }
                }
            }
            return .values([.vardict(pairs)])
        case "Set":
            try expect(call.message, "ssv")
            let (interfaceName, name) = (args[0].stringValue ?? "", args[1].stringValue ?? "")
            return try find(interfaceName).set(name, args[2].unwrappedVariant, call)
        default:
            throw .unknownMethod("org.freedesktop.DBus.Properties has no method \(member)")
        }
    }

    private func expect(_ message: Message, _ signature: String) throws(BusError) {
        guard message.signature == signature else {
            throw .invalidArgs("\(message.interface ?? "").\(message.member ?? "") takes arguments of type '\(signature)', not '\(message.signature)'")
        }
    }

    private func hasDescendants(_ path: String) -> Bool {
        let prefix = path == "/" ? "/" : path + "/"
        return objects.keys.contains { $0.hasPrefix(prefix) && $0 != path }
    }

    /// The next path components below `path` among the exported objects.
    private func childNames(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set<String>()
        for exported in objects.keys where exported.hasPrefix(prefix) && exported != path {
            if let first = exported.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted { a, b in
            // Numeric children (client objects) sort by number.
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
    }
}
