import OrientationAPI
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
                destination: OrientationAPI.busName, path: OrientationAPI.managerPath,
                interface: OrientationAPI.propertiesInterface, member: "Set",
                arguments: [.string(OrientationAPI.managerInterface), .string(ManagerProperty.rotationLocked.rawValue), .variant(.bool(locked))]))
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        return 0
    }
}
