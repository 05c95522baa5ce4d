import DBus

/// Options shared by the subcommands that talk to the daemon.
struct BusArguments {
    var bus: Connection.Bus = .system
    var json = false
    var rest: [String] = []

    struct UsageError: Error { var message: String }

    /// Takes the bus and --json options out of `arguments`, leaving the others in `rest`.
    static func parse(_ arguments: [String], allowJSON: Bool) throws(UsageError) -> BusArguments {
        var result = BusArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--system": result.bus = .system
            case "--session": result.bus = .session
            case "--address":
                index += 1
                guard index < arguments.count else { throw UsageError(message: "option --address needs a value") }
                result.bus = .address(arguments[index])
            case "--json" where allowJSON: result.json = true
            default:
                if argument.hasPrefix("--address=") {
                    result.bus = .address(String(argument.dropFirst("--address=".count)))
                } else {
                    result.rest.append(argument)
                }
            }
            index += 1
        }
        return result
    }
}
