import Glibc
import OrientationClient
import OrientationEngine
import Posix

/// `orientationctl follow`: a long-running client (all four orientations, following the
/// lock like any client) that applies each confirmed orientation to a display output,
/// for compositors without auto-rotation of their own.
enum FollowCommand {
    static let help = """
        Usage: orientationctl follow (--sway | --wlr-randr | --exec COMMAND)
                                     [--output NAME] [--offset DEGREES] [--restore]
                                     [--focused-app]
                                     [--system | --session | --address ADDRESS]

        Starts a client that supports all four orientations and applies every
        orientation it is given to a display output, at start and on each change,
        until interrupted (SIGTERM or SIGINT). The client follows RotationLocked:
        while locked nothing changes; on unlock the current orientation is applied.

          --sway            Tell sway over its IPC (swaymsg): 'output NAME transform T',
                            and at start 'input type:touch map_to_output NAME' and
                            'input type:tablet_tool map_to_output NAME', so that touch
                            and pen follow the rotation. Needs SWAYSOCK (set in sway's
                            session; 'exec orientationctl follow --sway' in sway's config).
          --wlr-randr       Any wlroots compositor with the output-management protocol,
                            through wlr-randr: 'wlr-randr --output NAME --transform T'.
          --exec COMMAND    Run COMMAND with /bin/sh on each change, with {orientation}
                            (normal, left-up, bottom-up, right-up) and {degrees} (0, 90,
                            180, 270, counter-clockwise as in the API) substituted. A
                            command that fails is logged with its exit status; follow
                            goes on.
          --output NAME     The output to turn (default: the built-in panel, eDP-*,
                            DSI-* or LVDS-*, or the only output; otherwise an error
                            lists the outputs). Not used by --exec.
          --offset DEGREES  0, 90, 180 or 270 added (counter-clockwise) to every
                            rotation, for panels mounted turned relative to the
                            accelerometer's normal.
          --restore         On exit, put the output back to its transform at start.
          --focused-app     The iOS model for the whole screen: when the focused window
                            belongs to a process with a started client, apply that
                            client's InterfaceOrientation instead of the device's (a
                            portrait-only app in front keeps the screen portrait; focus
                            an app that allows all four and the screen turns at once).
                            The focused window's process comes from sway's IPC (needs
                            swaymsg and SWAYSOCK, with any of the three targets); its
                            clients from the daemon's ClientsForProcess, the first
                            started one. Another app's signals go to that app only, so
                            follow asks again when the focus moves, the device turns or
                            the daemon comes back: an app that changes its supported
                            orientations while in front and the device still is
                            followed at the next turn or focus change.

        Transforms (sway-output(5): "the rotation is performed clockwise", of the
        output, so the content turns the other way):
            normal -> normal, left-up -> 90, bottom-up -> 180, right-up -> 270.
        When the compositor goes away (its IPC fails), follow exits with status 1 and
        says so; start it again with the compositor (sway's 'exec' does).
        Exit status: 0 when interrupted, 1 on an error, 2 on a usage error.
        """

    enum Target: Equatable { case sway, wlrRandr, exec(String) }

    static func run(_ arguments: [String]) -> Int32 {
        let options: BusArguments
        do { options = try BusArguments.parse(arguments, allowJSON: false) } catch { return usageError(error.message) }
        var target: Target?
        var outputName: String?
        var offset = 0
        var restore = false
        var focusedApp = false
        var rest = options.rest[...]
        func set(_ new: Target) -> Bool {
            guard target == nil else { return false }
            target = new
            return true
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                Output.line(help)
                return 0
            case "--sway":
                guard set(.sway) else { return usageError("choose one of --sway, --wlr-randr and --exec") }
            case "--wlr-randr":
                guard set(.wlrRandr) else { return usageError("choose one of --sway, --wlr-randr and --exec") }
            case "--exec":
                guard let command = rest.popFirst(), !command.isEmpty else { return usageError("option --exec needs a command") }
                guard set(.exec(command)) else { return usageError("choose one of --sway, --wlr-randr and --exec") }
            case "--output":
                guard let name = rest.popFirst(), !name.isEmpty else { return usageError("option --output needs an output name") }
                outputName = name
            case "--offset":
                guard let text = rest.popFirst(), let value = Int(text), [0, 90, 180, 270].contains(value) else {
                    return usageError("option --offset needs 0, 90, 180 or 270")
                }
                offset = value
            case "--restore":
                restore = true
            case "--focused-app":
                focusedApp = true
            default:
                return usageError("unexpected argument '\(argument)' for follow")
            }
        }
        guard let target else { return usageError("follow needs --sway, --wlr-randr or --exec COMMAND") }

        var applier: Applier
        switch Applier.make(target, output: outputName) {
        case .success(let made): applier = made
        case .failure(let message):
            Output.error(message.text)
            return 1
        }
        let initial = restore ? applier.currentTransform() : nil
        applier.prepare()

        guard let loop = interruptibleLoop() else { return 1 }
        let client: OrientationClient
        do {
            client = try OrientationClient(bus: options.bus, loop: loop)
            client.connection.onDisconnect = { [weak loop] in
                Output.error("lost the connection to the \(options.bus)")
                loop?.quit(1)
            }
            try client.start()
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        var applied: Orientation?
        func apply(_ orientation: Orientation) {
            guard orientation != .undefined, orientation != applied, let angle = orientation.angle else { return }
            applied = orientation
            if !applier.apply(orientation, degrees: (angle + offset) % 360) { loop.quit(1) }
        }
        // --focused-app: the focused process's client decides, the device otherwise.
        var focus: SwayFocus?
        var resolver: FocusedAppOrientation?
        func update() {
            guard let focus, let resolver else { return apply(client.state.interfaceOrientation) }
            resolver.resolve(pid: focus.pid) { app in apply(app ?? client.state.interfaceOrientation) }
        }
        if focusedApp {
            guard let swaymsg = target == .sway ? applier.tool : Spawn.find("swaymsg") else {
                Output.error("--focused-app needs sway's IPC: swaymsg not found on PATH")
                client.close()
                return 1
            }
            do {
                focus = try SwayFocus(swaymsg: swaymsg, loop: loop)
            } catch {
                Output.error(error.message)
                client.close()
                return 1
            }
            resolver = FocusedAppOrientation(connection: client.connection)
            focus?.onChange = { _ in update() }
            focus?.onGone = { [weak loop] in
                Output.error("sway's window events ended (sway is gone): exiting")
                loop?.quit(1)
            }
        }
        update()
        client.onEvent = { event in
            switch event {
            case .changed, .attached: update()
            default: break
            }
        }
        let status = loop.run()
        focus?.close()
        client.close()
        if let initial, status == 0 { applier.restore(initial) }
        return status
    }
}
