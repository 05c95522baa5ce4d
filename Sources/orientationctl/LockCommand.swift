import DBus

/// `orientationctl lock` and `unlock`: set RotationLocked.
enum LockCommand {
    static func run(_ arguments: [String], locked: Bool) -> Int32 {
        let options: BusArguments
        do { options = try BusArguments.parse(arguments, allowJSON: false) } catch { return usageError(error.message) }
        if let extra = options.rest.first { return usageError("unexpected argument '\(extra)' for \(locked ? "lock" : "unlock")") }
        do {
            let connection = try Connection.open(options.bus)
            defer { connection.close() }
            _ = try connection.call(try Message.methodCall(
                destination: "org.orientationd.Orientation1", path: "/org/orientationd/Orientation1",
                interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string("org.orientationd.Orientation1"), .string("RotationLocked"), .variant(.bool(locked))]))
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        return 0
    }
}
