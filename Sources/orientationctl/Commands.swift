import Arguments

/// The subcommands, in the order the help lists them, with what runs them and whether
/// bus options given before the command are passed on to it.
let subcommands: [(command: Command, run: @Sendable ([String]) -> Int32, usesBus: Bool)] = [
    (GetCommand.command, GetCommand.run, true),
    (MonitorCommand.command, MonitorCommand.run, true),
    (LockCommand.command(locked: true), { LockCommand.run($0, locked: true) }, true),
    (LockCommand.command(locked: false), { LockCommand.run($0, locked: false) }, true),
    (FollowCommand.command, FollowCommand.run, true),
    (ReplayCommand.command, ReplayCommand.run, false),
    (RecordCommand.command, RecordCommand.run, false),
]

let versionOption = Option("--version", help: "Show the version and exit.")

/// The top-level help: every command's usage (from its declaration) and summary, the
/// bus options (shared with every command) and the exit statuses.
let topLevel = Command(
    name: "orientationctl",
    summary: "Query and monitor orientationd, the device orientation service.",
    description: "Query and monitor orientationd, the device orientation service.\n\nCommands:\n" + subcommands.map { entry in
        let words = entry.command.name.split(separator: " ")
        let shortName = words.dropFirst().joined(separator: " ")
        let usage = Command(name: shortName, summary: "", description: "", groups: entry.command.groups.filter { $0.title != Common.busGroup.title },
                            positionals: entry.command.positionals).usage(width: 78)
        return usage.map { "  " + $0 }.joined(separator: "\n") + "\n" + "        " + entry.command.summary
    }.joined(separator: "\n") + "\n\nEach command's --help says more.",
    groups: [Common.busGroup, OptionGroup("Other options:", [Common.help, versionOption])],
    footer: """
        Exit status: 0 on success, 1 when the bus or the daemon cannot be reached or a
        call fails, 2 on a usage error.
        """,
    usageOverride: ["orientationctl [--system | --session | --address ADDRESS] COMMAND [OPTIONS]"])

/// The man page's SYNOPSIS (man/orientationctl.1): every command's, from its
/// declaration, then the program's own options.
var manPageSynopsis: String {
    subcommands.map(\.command.roffSynopsis).joined()
        + ".SY orientationctl\n.BR \\-h | \\-\\-help | \\-\\-version\n.YS\n"
}
