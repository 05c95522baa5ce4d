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
        apply(client.state.interfaceOrientation)
        client.onEvent = { event in
            switch event {
            case .changed(let state), .attached(let state): apply(state.interfaceOrientation)
            default: break
            }
        }
        let status = loop.run()
        client.close()
        if let initial, status == 0 { applier.restore(initial) }
        return status
    }
}

/// What follow does to the compositor.
struct Applier {
    var target: FollowCommand.Target
    var output: String
    var tool: String

    static func make(_ target: FollowCommand.Target, output: String?) -> Result<Applier, Message> {
        switch target {
        case .exec:
            return .success(Applier(target: target, output: output ?? "", tool: "/bin/sh"))
        case .sway, .wlrRandr:
            let name = target == .sway ? "swaymsg" : "wlr-randr"
            guard let tool = Spawn.find(name) else { return .failure(Message("\(name) not found on PATH")) }
            // Started by the compositor's own autostart (sway's exec), follow can be
            // faster than the compositor's IPC: ask again for up to 2 s.
            var list = Applier(target: target, output: "", tool: tool).outputs()
            for _ in 0..<10 where list == nil {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000_000)
                nanosleep(&pause, nil)
                list = Applier(target: target, output: "", tool: tool).outputs()
            }
            guard let outputs = list else {
                return .failure(Message(target == .sway
                    ? "cannot talk to sway (is SWAYSOCK set, and sway running?)"
                    : "wlr-randr cannot list the outputs (is WAYLAND_DISPLAY set, and the compositor running?)"))
            }
            if let output {
                guard outputs.contains(output) else {
                    return .failure(Message("no output '\(output)'; outputs: \(outputs.joined(separator: ", "))"))
                }
                return .success(Applier(target: target, output: output, tool: tool))
            }
            let panels = outputs.filter { $0.hasPrefix("eDP") || $0.hasPrefix("DSI") || $0.hasPrefix("LVDS") }
            if panels.count == 1 { return .success(Applier(target: target, output: panels[0], tool: tool)) }
            if outputs.count == 1 { return .success(Applier(target: target, output: outputs[0], tool: tool)) }
            return .failure(Message("which output? choose one with --output: \(outputs.joined(separator: ", "))"))
        }
    }

    struct Message: Error { var text: String; init(_ text: String) { self.text = text } }

    /// The outputs' names; nil when the compositor cannot be asked.
    func outputs() -> [String]? {
        switch target {
        case .sway:
            guard let (status, text) = Spawn.run(tool, ["-t", "get_outputs", "-r"]), status == 0 else { return nil }
            return SwayOutputs.values(of: "name", in: text)
        case .wlrRandr:
            guard let (status, text) = Spawn.run(tool, []), status == 0 else { return nil }
            return text.split(separator: "\n").compactMap { line in
                guard let first = line.first, first != " ", first != "\t" else { return nil }
                return line.split(separator: " ").first.map(String.init)
            }
        case .exec:
            return []
        }
    }

    /// The output's transform now (for --restore).
    func currentTransform() -> String? {
        switch target {
        case .sway:
            guard let (status, text) = Spawn.run(tool, ["-t", "get_outputs", "-r"]), status == 0 else { return nil }
            return SwayOutputs.transform(of: output, in: text)
        case .wlrRandr:
            guard let (status, text) = Spawn.run(tool, ["--output", output]), status == 0 else { return nil }
            return text.split(separator: "\n").first { $0.contains("Transform:") }?
                .split(separator: ":").last.map { String($0.filter { $0 != " " }) }
        case .exec:
            return nil
        }
    }

    /// Once at start: touch and pen follow the output (sway).
    func prepare() {
        guard target == .sway else { return }
        for type in ["touch", "tablet_tool"] {
            _ = Spawn.run(tool, ["input", "type:\(type)", "map_to_output", output])
        }
    }

    /// Applies one orientation; false when the compositor is gone (follow then exits).
    func apply(_ orientation: Orientation, degrees: Int) -> Bool {
        let transform = degrees == 0 ? "normal" : String(degrees)
        switch target {
        case .sway:
            return run(["output", output, "transform", transform], what: "swaymsg output \(output) transform \(transform)", fatal: true)
        case .wlrRandr:
            return run(["--output", output, "--transform", transform], what: "wlr-randr --output \(output) --transform \(transform)", fatal: false)
        case .exec(let template):
            let command = template.replacing("{orientation}", with: orientation.rawValue).replacing("{degrees}", with: String(degrees))
            guard let (status, _) = Spawn.run("/bin/sh", ["-c", command], capture: false) else {
                Output.error("cannot run /bin/sh for '\(command)'")
                return true
            }
            if status != 0 { Output.error("'\(command)' failed with exit status \(status)") }
            return true
        }
    }

    func restore(_ transform: String) {
        switch target {
        case .sway: _ = Spawn.run(tool, ["output", output, "transform", transform])
        case .wlrRandr: _ = Spawn.run(tool, ["--output", output, "--transform", transform])
        case .exec: break
        }
    }

    private func run(_ arguments: [String], what: String, fatal: Bool) -> Bool {
        guard let (status, _) = Spawn.run(tool, arguments), status == 0 else {
            if fatal, outputs() == nil {
                Output.error("the compositor is gone (\(what) failed and it no longer answers): exiting")
                return false
            }
            Output.error("\(what) failed")
            return true
        }
        return true
    }
}

/// The few values follow needs from `swaymsg -t get_outputs -r`, without a JSON library:
/// sway prints one object per output with "name" before "transform".
enum SwayOutputs {
    static func values(of key: String, in json: String) -> [String] {
        var out: [String] = []
        var rest = Substring(json)
        let marker = "\"\(key)\": \""
        while let range = rest.firstRange(of: marker) {
            let after = rest[range.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            out.append(String(after[..<end]))
            rest = after[end...]
        }
        return out
    }

    static func transform(of output: String, in json: String) -> String? {
        guard let range = json.firstRange(of: "\"name\": \"\(output)\"") else { return nil }
        return values(of: "transform", in: String(json[range.upperBound...])).first
    }
}

/// Runs programs with posix_spawn and waits for them.
enum Spawn {
    static func find(_ name: String) -> String? {
        let path = String(cString: getenv("PATH") ?? strdup("/usr/bin:/bin"))
        for directory in path.split(separator: ":") where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Exit status and standard output; nil when the program cannot be started.
    static func run(_ path: String, _ arguments: [String], capture: Bool = true) -> (Int32, String)? {
        var pipe: [Int32] = [-1, -1]
        if capture, Glibc.pipe(&pipe) != 0 { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if capture {
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            posix_spawn_file_actions_addclose(&actions, pipe[1])
        }
        // The child gets the default signal mask and actions, not follow's blocked set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        if capture { close(pipe[1]) }
        guard rc == 0 else {
            if capture { close(pipe[0]) }
            return nil
        }
        var output: [UInt8] = []
        if capture {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output += chunk[0..<n]
            }
            close(pipe[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, String(decoding: output, as: UTF8.self))
    }
}
