import DBus
import OrientationAPI

/// `orientationctl lock` and `unlock`: set RotationLocked; `lock --toggle` flips it.
enum LockCommand {
    static let lockHelp = """
        Usage: orientationctl lock [--toggle] [--system | --session | --address ADDRESS]

        Locks the rotation (RotationLocked = true): Orientation, and the device
        orientation of clients that follow the lock, stop changing. With --toggle,
        locks if unlocked and unlocks if locked, and prints the new state ("locked" or
        "unlocked"), for a key binding such as sway's
            bindsym XF86RotationLockToggle exec orientationctl lock --toggle
        On the system bus polkit decides (action org.orientationd.Orientation1.lock).
        """
    static let unlockHelp = """
        Usage: orientationctl unlock [--system | --session | --address ADDRESS]

        Unlocks the rotation (RotationLocked = false); the current orientation applies
        at once.
        """

    static func run(_ arguments: [String], locked: Bool) -> Int32 {
        let options: BusArguments
        do { options = try BusArguments.parse(arguments, allowJSON: false) } catch { return usageError(error.message) }
        var toggle = false
        for argument in options.rest {
            switch argument {
            case "-h", "--help":
                Output.line(locked ? lockHelp : unlockHelp)
                return 0
            case "--toggle" where locked:
                toggle = true
            default:
                return usageError("unexpected argument '\(argument)' for \(locked ? "lock" : "unlock")")
            }
        }
        do {
            let connection = try Connection.open(options.bus)
            defer { connection.close() }
            var value = locked
            if toggle {
                let reply = try connection.call(try Message.methodCall(
                    destination: OrientationAPI.busName, path: OrientationAPI.managerPath,
                    interface: OrientationAPI.propertiesInterface, member: "Get",
                    arguments: [.string(OrientationAPI.managerInterface), .string(ManagerProperty.rotationLocked.rawValue)]))
                guard let current = reply.arguments.first?.unwrappedVariant.boolValue else {
                    Output.error("RotationLocked is not a boolean in the daemon's reply")
                    return 1
                }
                value = !current
            }
            _ = try connection.call(try Message.methodCall(
                destination: OrientationAPI.busName, path: OrientationAPI.managerPath,
                interface: OrientationAPI.propertiesInterface, member: "Set",
                arguments: [.string(OrientationAPI.managerInterface), .string(ManagerProperty.rotationLocked.rawValue), .variant(.bool(value))]))
            if toggle { Output.line(value ? "locked" : "unlocked") }
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        return 0
    }
}
