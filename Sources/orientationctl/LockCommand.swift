import Arguments
import DBus
import OrientationAPI

/// `orientationctl lock` and `unlock`: set RotationLocked; `lock --toggle` flips it.
enum LockCommand {
    static let toggle = Option("--toggle", help: "Flip the lock and print the new state.")

    static func command(locked: Bool) -> Command {
        locked
            ? Command(name: "orientationctl lock", summary: "Lock the rotation; --toggle flips the lock and prints the new state.", description: """
                Locks the rotation (RotationLocked = true): Orientation, and the device
                orientation of clients that follow the lock, stop changing. With --toggle,
                locks if unlocked and unlocks if locked, and prints the new state ("locked" or
                "unlocked"), for a key binding such as sway's
                    bindsym XF86RotationLockToggle exec orientationctl lock --toggle
                On the system bus polkit decides (action org.orientationd.Orientation1.lock).
                """, groups: [OptionGroup("Options:", [toggle, Common.help]), Common.busGroup])
            : Command(name: "orientationctl unlock", summary: "Unlock the rotation; the current orientation applies at once.", description: """
                Unlocks the rotation (RotationLocked = false); the current orientation applies
                at once.
                """, groups: [OptionGroup("Options:", [Common.help]), Common.busGroup])
    }

    static func run(_ arguments: [String], locked: Bool) -> Int32 {
        var exit: Int32 = 0
        guard let parsed = Common.parse(command(locked: locked), arguments, exitStatus: &exit) else { return exit }
        let options = (bus: Common.bus(parsed), json: false)
        let toggle = locked && parsed.has(Self.toggle)  // unlock has no --toggle
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
