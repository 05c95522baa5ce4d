import Arguments
import DBus

/// What every orientationctl subcommand shares on its command line: the bus options,
/// --json, --help, and how a parse ends (run, or exit with a status).
enum Common {
    static let system = Option("--system", help: "The daemon on the system bus (the default).")
    static let session = Option("--session", help: "The daemon on the session bus.")
    static let address = Option("--address", value: "ADDRESS", help: "The daemon on the bus at ADDRESS.")
    static let busGroup = OptionGroup("Bus options (before or after the command; the last one counts):", [system, session, address],
                                      form: .lastWins)
    static let json = Option("--json", help: "One JSON object per line.")
    static let help = Option("-h", "--help", help: "Show this help and exit.")

    /// The bus the options chose: the last of --system, --session and --address.
    static func bus(_ parsed: Parsed) -> Connection.Bus {
        switch parsed.last(of: [system, session, address]) {
        case let (option, _)? where option == session: .session
        case let (option, value?)? where option == address: .address(value)
        default: .system
        }
    }

    /// Parses a subcommand's arguments: the parsed options to run with, or nil with the
    /// status to exit with — 0 after printing the help for --help, 2 after a usage error.
    static func parse(_ command: Command, _ arguments: [String], exitStatus: inout Int32) -> Parsed? {
        do {
            let parsed = try command.parse(arguments)
            guard !parsed.has(help) else {
                Output.line(command.help)
                exitStatus = 0
                return nil
            }
            return parsed
        } catch {
            exitStatus = usageError(error.message, for: command.name.split(separator: " ").dropFirst().first.map(String.init))
            return nil
        }
    }
}
