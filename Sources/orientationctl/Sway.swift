import Glibc
import Posix

/// What follow reads from `swaymsg -t get_outputs -r` (sway-ipc(7): an array of output
/// objects with "name" and "transform").
enum SwayOutputs {
    static func names(in text: String) -> [String]? {
        guard let outputs = JSON.parse(text.utf8)?.array else { return nil }
        return outputs.compactMap { $0["name"]?.string }
    }

    static func transform(of output: String, in text: String) -> String? {
        JSON.parse(text.utf8)?.array?.first { $0["name"]?.string == output }?["transform"]?.string
    }
}

/// The process of the focused window, from sway's IPC: read once from the tree, then
/// followed through a `swaymsg -t subscribe -m '["window"]'` child, whose standard output
/// is one more descriptor in follow's event loop.
final class SwayFocus {
    /// The focused window's process; nil when no window is focused (an empty workspace)
    /// or the window has no process sway knows.
    private(set) var pid: Int?
    /// Called when the focused process changes.
    var onChange: ((Int?) -> Void)?
    /// Called once when the event stream ends: sway has gone.
    var onGone: (() -> Void)?

    private let swaymsg: String
    private let loop: EventLoop
    private var child: Spawn.Child?
    private var stream = JSONStream()

    struct Failure: Error { var message: String }

    init(swaymsg: String, loop: EventLoop) throws(Failure) {
        self.swaymsg = swaymsg
        self.loop = loop
        // Quiet: when sway cannot be reached, one line below says so (not swaymsg's
        // own complaints); when it goes away later, readEvents says so.
        guard let child = Spawn.start(swaymsg, ["-t", "subscribe", "-m", "-r", "[\"window\"]"], quiet: true) else {
            throw Failure(message: "cannot run \(swaymsg)")
        }
        self.child = child
        // Subscribed first, read the tree second: a focus change between the two is then
        // an event, never lost.
        guard let tree = Self.tree(swaymsg) else {
            close()
            throw Failure(message: Applier.unreachable(.sway))
        }
        pid = Self.focusedProcess(in: tree)
        do {
            try child.output.setNonBlocking()
            try loop.add(fd: child.output.rawValue, events: .readable) { [weak self] _ in self?.readEvents() }
        } catch {
            close()
            throw Failure(message: "cannot watch sway's events: \(error)")
        }
    }

    deinit { close() }

    /// Stops the event child; safe to call more than once.
    func close() {
        guard let child else { return }
        self.child = nil
        if loop.isWatching(fd: child.output.rawValue) { loop.remove(fd: child.output.rawValue) }
        child.output.close()
        kill(child.pid, SIGTERM)
        Spawn.wait(child.pid)
    }

    private func readEvents() {
        guard let child else { return }
        var texts: [JSON?] = []
        let (end, _) = child.output.drain(chunkSize: 65536) { chunk in
            texts += stream.feed(chunk)
            return true
        }
        for text in texts {
            guard let event = text else {
                Output.error("ignoring a malformed event from sway")
                continue
            }
            handle(event)
        }
        if end != .wouldBlock {
            close()
            onGone?()
        }
    }

    private func handle(_ event: JSON) {
        if case .array(let replies) = event {
            // The subscribe reply: [{"success": true}].
            if replies.first?["success"]?.bool == false { Output.error("sway refused the window-event subscription") }
            return
        }
        let new: Int?
        switch event["change"]?.string {
        case "focus":
            new = event["container"]?["pid"]?.int
        case "close" where event["container"]?["focused"]?.bool == true,
             "move" where event["container"]?["focused"]?.bool == true:
            // The focused window went (or went elsewhere): whatever has the focus now.
            guard let tree = Self.tree(swaymsg) else { return }
            new = Self.focusedProcess(in: tree)
        default:
            return
        }
        guard new != pid else { return }
        pid = new
        onChange?(new)
    }

    private static func tree(_ swaymsg: String) -> JSON? {
        guard let (status, text) = Spawn.run(swaymsg, ["-t", "get_tree", "-r"], quiet: true), status == 0 else { return nil }
        return JSON.parse(text.utf8)
    }

    /// The "pid" of the node with "focused": true (sway-ipc(7), GET_TREE), through
    /// "nodes" and "floating_nodes"; nil when the focus is on a node without a process.
    static func focusedProcess(in node: JSON) -> Int? {
        if node["focused"]?.bool == true { return node["pid"]?.int }
        for child in (node["nodes"]?.array ?? []) + (node["floating_nodes"]?.array ?? []) {
            if let pid = focusedProcess(in: child) { return pid }
        }
        return nil
    }
}
