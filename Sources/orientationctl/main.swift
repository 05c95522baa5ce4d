import Arguments
import Glibc
import Posix
import OrientationAPI

let version = OrientationAPI.version

/// The top-level help: the commands, the bus options (shared with every command), and
/// the exit statuses. Each command's own --help comes from its declaration.
let topLevel = Command(
    usage: ["orientationctl [--system | --session | --address ADDRESS] COMMAND [OPTIONS]"],
    description: """
        Query and monitor orientationd, the device orientation service.

        Commands:
          get [--json]          Print the sensor and the current orientation and tilt.
                                The sensor is read only while a client is started, so a
                                plain get shows the last known values.
          monitor [--json] [--supported LIST] [--preferred O] [--no-follow-lock]
                                Create and start a client and print every change with a
                                timestamp until interrupted (Ctrl-C). LIST is a comma-
                                separated list of normal, left-up, bottom-up, right-up
                                (default: all four); O is the preferred orientation.
                                --json prints one JSON object per line.
          lock [--toggle]       Lock the rotation (RotationLocked = true); --toggle flips
                                it and prints the new state (for a key binding).
          unlock                Unlock the rotation; the current orientation applies at once.
          replay [--config PATH] [--no-gyro] [--explain] TRACE.csv
                                Run the orientation engine over a trace of t_ms,x,y,z
                                lines and print t_ms,orientation,tilt at each change
                                (no daemon needed). See 'orientationctl replay --help'.
          follow (--sway | --wlr-randr | --exec COMMAND) [--output NAME] [--offset D] [--restore]
                                [--focused-app]
                                Rotate a display output with the orientation (sway,
                                wlroots compositors, anything else through a command).
                                See 'orientationctl follow --help'.
          record [--seconds N] [--output FILE]
                                Capture the accelerometer the daemon would use as a
                                replay trace (t_ms,x,y,z after scale and mount matrix),
                                for bug reports. See 'orientationctl record --help'.
        """,
    groups: [Common.busGroup, OptionGroup("Other options:", [Common.help, Option("--version", help: "Show the version and exit.")])],
    footer: """
        Exit status: 0 on success, 1 when the bus or the daemon cannot be reached or a
        call fails, 2 on a usage error.
        """)

/// The event loop of a long-running command: SIGINT and SIGTERM end it with status 0.
/// nil (said on standard error) when it cannot be set up.
func interruptibleLoop() -> EventLoop? {
    do {
        let loop = try EventLoop()
        try loop.handleSignals([SIGINT, SIGTERM]) { [weak loop] _ in loop?.quit(0) }
        return loop
    } catch {
        Output.error("cannot set up the event loop: \(error)")
        return nil
    }
}

/// A usage error: the message and where to read more (the subcommand's own help when
/// there is one); exit status 2.
func usageError(_ message: String, for command: String? = nil) -> Int32 {
    Output.error(message)
    Output.error("try 'orientationctl \(command.map { $0 + " " } ?? "")--help' for more information")
    return 2
}

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    // Bus options may come before the command.
    var leading: [String] = []
    while let first = arguments.first, first.hasPrefix("-") {
        if first == "-h" || first == "--help" {
            Output.line(topLevel.help)
            return 0
        }
        if first == "--version" {
            Output.line("orientationctl \(version)")
            return 0
        }
        leading.append(arguments.removeFirst())
        if first == "--address", !arguments.isEmpty { leading.append(arguments.removeFirst()) }
    }
    guard let command = arguments.first else { return usageError("no command given") }
    let rest = leading + arguments.dropFirst()
    switch command {
    case "get": return GetCommand.run(rest)
    case "monitor": return MonitorCommand.run(rest)
    case "lock": return LockCommand.run(rest, locked: true)
    case "unlock": return LockCommand.run(rest, locked: false)
    case "replay": return ReplayCommand.run(Array(arguments.dropFirst()))
    case "record": return RecordCommand.run(Array(arguments.dropFirst()))
    case "follow": return FollowCommand.run(rest)
    case "help": Output.line(topLevel.help); return 0
    default: return usageError("unknown command '\(command)'")
    }
}

exit(main())
