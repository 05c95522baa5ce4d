import Glibc
import OrientationAPI

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
            // faster than the compositor's IPC: ask again for up to 2 s, quietly (the
            // tool's own complaints would repeat eleven times; one line says it below).
            let probe = Applier(target: target, output: "", tool: tool)
            var list = probe.outputs(quiet: true)
            for _ in 0..<10 where list == nil {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000_000)
                nanosleep(&pause, nil)
                list = probe.outputs(quiet: true)
            }
            guard let outputs = list else { return .failure(Message(unreachable(target))) }
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

    /// The one line said when the compositor cannot be asked: which variable names
    /// its socket, and what it holds.
    static func unreachable(_ target: FollowCommand.Target) -> String {
        let variable = target == .sway ? "SWAYSOCK" : "WAYLAND_DISPLAY"
        let value = getenv(variable).map { String(cString: $0) } ?? ""
        let compositor = target == .sway ? "sway" : "the compositor (wlr-randr)"
        guard !value.isEmpty else {
            return "cannot talk to \(compositor): \(variable) is not set (run follow inside the session, e.g. from sway's config)"
        }
        return "cannot talk to \(compositor) at \(variable)=\(value) (is it running?)"
    }

    /// The outputs' names; nil when the compositor cannot be asked. `quiet`: the
    /// tool's error messages are not passed on.
    func outputs(quiet: Bool = false) -> [String]? {
        switch target {
        case .sway:
            guard let (status, text) = Spawn.run(tool, ["-t", "get_outputs", "-r"], quiet: quiet), status == 0 else { return nil }
            return SwayOutputs.names(in: text)
        case .wlrRandr:
            guard let (status, text) = Spawn.run(tool, [], quiet: quiet), status == 0 else { return nil }
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

    /// One program run to apply an orientation: --exec's command through the shell, or
    /// the compositor's tool. follow runs it without waiting for it (see FollowCommand).
    struct Job: Equatable {
        var path: String
        var arguments: [String]
        /// How a failure names it.
        var what: String
        /// Its standard output is passed on (--exec's command) or dropped (the tools).
        var showsOutput: Bool
    }

    /// The program that applies one orientation, with --exec's placeholders filled in.
    func job(for orientation: Orientation, degrees: Int) -> Job {
        let transform = degrees == 0 ? "normal" : String(degrees)
        switch target {
        case .exec(let template):
            let command = template.replacing("{orientation}", with: orientation.rawValue).replacing("{degrees}", with: String(degrees))
            return Job(path: tool, arguments: ["-c", command], what: "'\(command)'", showsOutput: true)
        case .sway:
            let arguments = ["output", output, "transform", transform]
            return Job(path: tool, arguments: arguments, what: "swaymsg " + arguments.joined(separator: " "), showsOutput: false)
        case .wlrRandr:
            let arguments = ["--output", output, "--transform", transform]
            return Job(path: tool, arguments: arguments, what: "wlr-randr " + arguments.joined(separator: " "), showsOutput: false)
        }
    }

    /// Says that a job failed; false when follow should stop: sway no longer answers (the
    /// compositor is gone). A failed --exec command or wlr-randr is only reported.
    func failed(_ job: Job, status: Int32) -> Bool {
        if target == .sway, outputs(quiet: true) == nil {
            Output.error("the compositor is gone (\(job.what) failed and it no longer answers): exiting")
            return false
        }
        Output.error("\(job.what) failed with exit status \(status)")
        return true
    }

    func restore(_ transform: String) {
        switch target {
        case .sway: _ = Spawn.run(tool, ["output", output, "transform", transform])
        case .wlrRandr: _ = Spawn.run(tool, ["--output", output, "--transform", transform])
        case .exec: break
        }
    }
}
