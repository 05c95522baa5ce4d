import Arguments
import Glibc
import OrientationClient
import Posix
import OrientationAPI

/// `orientationctl follow`: a long-running client (all four orientations, following the
/// lock like any client) that applies each confirmed orientation to a display output,
/// for compositors without auto-rotation of their own.
enum FollowCommand {
    static let command = Command(
        name: "orientationctl follow",
        summary: "Rotate a display output with the orientation (sway, wlroots, a command).",
        description: """
            Starts a client that supports all four orientations and applies every
            orientation it is given to a display output, at start and on each change,
            until interrupted (SIGTERM or SIGINT). The client follows RotationLocked:
            while locked nothing changes; on unlock the current orientation is applied.
            """,
        groups: [OptionGroup("Target (one of):", [sway, wlrRandr, exec], form: .exactlyOne),
                 OptionGroup("Options:", [output, offset.option, restore, focusedApp, Common.help]), Common.busGroup],
        footer: footer)

    static let sway = Option("--sway", help: """
                Tell sway over its IPC (swaymsg): 'output NAME transform T',
                and at start 'input type:touch map_to_output NAME' and
                'input type:tablet_tool map_to_output NAME', so that touch
                and pen follow the rotation. Needs SWAYSOCK (set in sway's
                session; 'exec orientationctl follow --sway' in sway's config).
                """)
    static let wlrRandr = Option("--wlr-randr", help: """
                Any wlroots compositor with the output-management protocol,
                through wlr-randr: 'wlr-randr --output NAME --transform T'.
                """)
    static let exec = Option("--exec", value: "COMMAND", help: """
                Run COMMAND with /bin/sh on each change, with {orientation}
                (normal, left-up, bottom-up, right-up) and {degrees} (0, 90,
                180, 270, counter-clockwise as in the API) substituted. A
                command that fails is logged with its exit status; follow
                goes on.
                """)
    static let output = Option("--output", value: "NAME", help: """
                The output to turn (default: the built-in panel, eDP-*,
                DSI-* or LVDS-*, or the only output; otherwise an error
                lists the outputs). Not used by --exec.
                """)
    static let offset = TypedOption<Int>(Option("--offset", value: "DEGREES", help: """
                0, 90, 180 or 270 added (counter-clockwise) to every
                rotation, for panels mounted turned relative to the
                accelerometer's normal.
                """)) { text throws(UsageError) in
        guard let value = Int(text), [0, 90, 180, 270].contains(value) else { throw UsageError("option --offset needs 0, 90, 180 or 270") }
        return value
    }
    static let restore = Option("--restore", help: "On exit, put the output back to its transform at start.")
    static let focusedApp = Option("--focused-app", help: """
                The iOS model for the whole screen: when the focused window
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
                """)
    static let footer = """
            Transforms (sway-output(5): "the rotation is performed clockwise", of the
            output, so the content turns the other way):
                normal -> normal, left-up -> 90, bottom-up -> 180, right-up -> 270.
            Each change is applied by a program (swaymsg, wlr-randr or COMMAND), one at a
            time: a change that comes while one runs is applied after it (the latest
            only). follow answers SIGTERM and the bus meanwhile and does not wait for it at
            exit, so a compositor or a command that hangs does not hang follow (--restore
            is then skipped, with one line).
            When the compositor goes away (its IPC fails), follow exits with status 1 and
            says so; start it again with the compositor (sway's 'exec' does).
            Exit status: 0 when interrupted, 1 on an error, 2 on a usage error.
            """

    enum Target: Equatable { case sway, wlrRandr, exec(String) }

    static func run(_ arguments: [String]) -> Int32 {
        var exit: Int32 = 0
        guard let parsed = Common.parse(command, arguments, exitStatus: &exit) else { return exit }
        let options = (bus: Common.bus(parsed), json: false)
        // The parser saw to it that exactly one target was given.
        let target: Target
        if parsed.has(sway) {
            target = .sway
        } else if parsed.has(wlrRandr) {
            target = .wlrRandr
        } else {
            let command = parsed.value(exec) ?? ""
            guard !command.isEmpty else { return usageError("option --exec needs a command", for: "follow") }
            target = .exec(command)
        }
        let outputName = parsed.value(output)
        if outputName?.isEmpty == true { return usageError("option --output needs an output name", for: "follow") }
        let offset: Int
        do {
            offset = try parsed.value(Self.offset) ?? 0
        } catch {
            return usageError(error.message, for: "follow")
        }
        let restore = parsed.has(Self.restore)
        let focusedApp = parsed.has(Self.focusedApp)

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
        // Each orientation is applied by a program (--exec's command, swaymsg, wlr-randr)
        // that runs without holding up the loop: one that takes long or hangs (a
        // compositor that no longer answers) must not keep follow from SIGTERM or from
        // the bus. One runs at a time; a change that comes meanwhile is applied after it,
        // the latest only.
        var running: (job: Applier.Job, watch: ExitWatch)?
        var queued: Applier.Job?
        let devNull = try? FileDescriptor.open("/dev/null", .writeOnly)
        defer { devNull?.close() }
        func run(_ job: Applier.Job) {
            guard running == nil else { return queued = job }
            let pid: pid_t
            do {
                pid = try Subprocess.start(job.path, job.arguments, output: job.showsOutput ? nil : devNull?.rawValue)
            } catch {
                return Output.error("cannot run \(job.path) for \(job.what): \(error)")
            }
            func ended(_ status: Int32) {
                running = nil
                if status != 0, !applier.failed(job, status: status) { return loop.quit(1) }
                if let next = queued {
                    queued = nil
                    if next != job { run(next) }
                }
            }
            do { running = (job, try ExitWatch(pid: pid, loop: loop) { ended($0) }) } catch {
                // No pidfd (Linux before 5.3): wait for it here.
                ended(Subprocess.wait(pid))
            }
        }
        var applied: Orientation?
        func apply(_ orientation: Orientation) {
            guard orientation != .undefined, orientation != applied, let angle = orientation.angle else { return }
            applied = orientation
            run(applier.job(for: orientation, degrees: (angle + offset) % 360))
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
        if let initial, status == 0 {
            // A tool that has not ended is a compositor that does not answer: asking it
            // again would hang follow's exit too.
            if let running {
                Output.error("transform not restored: \(running.job.what) has not ended")
            } else {
                applier.restore(initial)
            }
        }
        return status
    }
}
