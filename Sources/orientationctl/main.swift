import Arguments
import Glibc
import Posix
import OrientationAPI

let version = OrientationAPI.version

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
    // Bus options may come before the command; nothing else may.
    var leading: [String] = []
    let busOptions = Common.busGroup.options.flatMap(\.names)
    while let first = arguments.first, first.hasPrefix("-") {
        if Common.help.names.contains(first) {
            Output.line(topLevel.help)
            return 0
        }
        if versionOption.names.contains(first) {
            Output.line("orientationctl \(version)")
            return 0
        }
        // `--address=ADDRESS` is the same option as `--address ADDRESS`.
        let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
        guard busOptions.contains(name) else { return usageError("unknown option '\(name)'") }
        leading.append(arguments.removeFirst())
        if Common.address.names.contains(first), !arguments.isEmpty { leading.append(arguments.removeFirst()) }
    }
    guard let name = arguments.first else { return usageError("no command given") }
    if name == "help" {
        Output.line(topLevel.help)
        return 0
    }
    guard let entry = subcommands.first(where: { $0.command.name == "orientationctl " + name }) else {
        return usageError("unknown command '\(name)'")
    }
    return entry.run((entry.usesBus ? leading : []) + arguments.dropFirst())
}

exit(main())
