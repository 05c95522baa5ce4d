import Arguments
import DBus

/// What every orientationctl subcommand shares on its command line: the bus options,
/// --json, --help, and how a parse ends (run, or exit with a status).
enum Common {
    static let busGroup = OptionGroup("Bus options (before or after the command):", [
        Option("--system", help: "The daemon on the system bus (the default)."),
        Option("--session", help: "The daemon on the session bus."),
        Option("--address", value: "ADDRESS", help: "The daemon on the bus at ADDRESS."),
    ])
    static let json = Option("--json", help: "One JSON object per line.")
    static let help = Option("-h", "--help", help: "Show this help and exit.")

    /// The bus the options chose: the last of --system, --session and --address.
    static func bus(_ parsed: Parsed) -> Connection.Bus {
        switch parsed.last(of: ["--system", "--session", "--address"]) {
        case ("--session", _)?: .session
        case ("--address", let address?)?: .address(address)
        default: .system
        }
    }

    enum Outcome {
        case run(Parsed)
        case exit(Int32)
    }

    /// Parses a subcommand's arguments: its help on --help (exit 0), a usage error (exit
    /// 2), or the parsed options to run with.
    static func parse(_ command: Command, _ arguments: [String]) -> Outcome {
        do {
            let parsed = try command.parse(arguments)
            if parsed.has("--help") {
                Output.line(command.help)
                return .exit(0)
            }
            return .run(parsed)
        } catch {
            return .exit(usageError(error.message))
        }
    }
}
