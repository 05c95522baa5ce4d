import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// A headless sway (Debian 12's), run as an unprivileged user as sway requires, with a
/// private XDG_RUNTIME_DIR; stopped when released.
final class HeadlessSway {
    let runtime: String
    let socket: String
    private let process: SpawnedProcess

    init() throws {
        runtime = try makeTemporaryDirectory(prefix: "orientationd-sway")
        let config = runtime + "/config"
        try "output HEADLESS-1 resolution 800x600\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        chown(runtime, 65534, 65534)  // nobody
        let process = try SpawnedProcess("/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/env", "XDG_RUNTIME_DIR=" + runtime,
                                                           "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman",
                                                           "/usr/bin/sway", "-c", config], directory: runtime)
        self.process = process
        var found: String?
        let directory = runtime
        _ = waitUntil(seconds: 20) {
            found = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
            return found != nil
        }
        guard let found else { throw TestFailure("sway did not start: \(process.stderr)") }
        socket = runtime + "/" + found
        _ = waitUntil(seconds: 10) { self.transform() != nil }
    }

    deinit { stop() }

    func stop() {
        thaw()
        process.signal(SIGTERM)
        _ = waitUntil(seconds: 10) { !process.isRunning }
    }

    /// Stops sway (SIGSTOP): it still accepts IPC connections but answers nothing, as
    /// a compositor that hangs.
    func freeze() throws {
        // The socket is sway-ipc.UID.PID.sock.
        let parts = (socket as NSString).lastPathComponent.split(separator: ".")
        guard parts.count == 4, let pid = pid_t(parts[2]) else { throw TestFailure("no process ID in \(socket)") }
        frozen = pid
        kill(pid, SIGSTOP)
    }

    /// Lets a frozen sway go on. runuser stopped itself when sway stopped (as su does,
    /// for job control), so it is continued too.
    func thaw() {
        guard let frozen else { return }
        kill(frozen, SIGCONT)
        process.signal(SIGCONT)
        self.frozen = nil
    }

    private var frozen: pid_t?

    func swaymsg(_ arguments: [String]) -> String {
        (try? ExternalCommand.run("/usr/bin/swaymsg", arguments, directory: runtime, environment: ["SWAYSOCK": socket]).stdout) ?? ""
    }

    /// HEADLESS-1's transform as sway reports it.
    func transform() -> String? {
        let json = swaymsg(["-t", "get_outputs", "-r"])
        guard let range = json.firstRange(of: "\"transform\": \"") else { return nil }
        return String(json[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The title of the focused window; nil when none is (an empty workspace).
    func focusedTitle() -> String? {
        let json = swaymsg(["-t", "get_tree", "-r"])
        guard let data = json.data(using: .utf8), let tree = try? JSONSerialization.jsonObject(with: data) else { return nil }
        func find(_ node: Any) -> String?? {
            guard let node = node as? [String: Any] else { return nil }
            if node["focused"] as? Bool == true { return .some(node["type"] as? String == "con" ? node["name"] as? String : nil) }
            for child in (node["nodes"] as? [Any] ?? []) + (node["floating_nodes"] as? [Any] ?? []) {
                if let found = find(child) { return found }
            }
            return nil
        }
        return find(tree) ?? nil
    }

    var environment: [String: String] {
        ["SWAYSOCK": socket, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime,
         "WAYLAND_DISPLAY": "wayland-1"]
    }
}

/// `orientationctl follow` against a real compositor: headless sway.
@Suite(.serialized) struct FollowTests {
    @Test func swayFollowsEveryTurnTheLockAndRestores() throws {
        let sway = try HeadlessSway()
        _ = sway.swaymsg(["output", "HEADLESS-1", "transform", "180"])
        #expect(sway.transform() == "180")
        let (fixture, peer) = try DaemonFixture.upright()
        let follow = try ChildProcess(product: "orientationctl",
                                      arguments: ["--address", fixture.bus.address, "follow", "--sway", "--output", "HEADLESS-1", "--restore"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        // Applied at start.
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "follow:\n\(follow.stderr)")
        // The direction (sway-output(5): the output is rotated clockwise).
        for (pose, transform) in [(DaemonFixture.Pose.leftUp, "90"), (.bottomUp, "180"), (.rightUp, "270"), (.normal, "normal")] {
            fixture.hold(pose, durationMs: 1000)
            #expect(waitUntil(seconds: 10) { sway.transform() == transform }, "no transform \(transform): \(follow.stderr)")
        }
        // Locked: nothing changes; unlocked: the current orientation at once.
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(true))
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(fixture.drained())
        #expect(!waitUntil(seconds: 1) { sway.transform() != "normal" })
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(false))
        #expect(waitUntil(seconds: 10) { sway.transform() == "90" }, "\(follow.stderr)")
        // SIGTERM with --restore: back to the transform at start.
        follow.signal(SIGTERM)
        #expect(follow.waitForExit() == 0, "\(follow.stderr)")
        #expect(sway.transform() == "180")
    }

    @Test func swayGoneIsAClearExit() throws {
        let sway = try HeadlessSway()
        _ = sway.swaymsg(["output", "HEADLESS-1", "transform", "270"])
        let (fixture, _) = try DaemonFixture.upright()
        let follow = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--sway"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "\(follow.stderr)")
        // --focused-app with --exec: the end of sway's event stream is the end of follow.
        let record = fixture.bus.directory + "/focused.txt"
        let focused = try ChildProcess(product: "orientationctl",
                                       arguments: ["--address", fixture.bus.address, "follow", "--focused-app", "--exec", "echo {orientation} >> \(record)"],
                                       directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { (try? String(contentsOfFile: record, encoding: .utf8)) == "normal\n" }, "\(focused.stderr)")
        sway.stop()
        #expect(focused.waitForExit() == 1)
        #expect(focused.stderr.contains("sway's window events ended (sway is gone): exiting"), "\(focused.stderr)")
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(follow.waitForExit() == 1)
        #expect(follow.stderr.contains("the compositor is gone"), "\(follow.stderr)")
    }

    @Test func execRunsTheCommandAndSurvivesItsFailures() throws {
        let (fixture, _) = try DaemonFixture.upright()
        let record = fixture.bus.directory + "/applied.txt"
        let command = "echo {orientation} {degrees} >> \(record); [ {degrees} != 180 ] || exit 3"
        let follow = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--exec", command],
                                      directory: fixture.bus.directory)
        func lines() -> [String] { ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        #expect(waitUntil(seconds: 10) { lines() == ["normal 0"] }, "\(follow.stderr)")
        for (pose, line) in [(DaemonFixture.Pose.leftUp, "left-up 90"), (.bottomUp, "bottom-up 180"), (.rightUp, "right-up 270")] {
            fixture.hold(pose, durationMs: 1000)
            #expect(waitUntil(seconds: 10) { lines().last == line }, "\(lines()) \(follow.stderr)")
        }
        #expect(follow.stderr.contains("failed with exit status 3"), "\(follow.stderr)")
        #expect(follow.isRunning)
        follow.signal(SIGTERM)
        #expect(follow.waitForExit() == 0)
        // --focused-app needs sway's IPC: without it, one clear line and status 1.
        let noSway = try ChildProcess.run(product: "orientationctl",
                                          arguments: ["--address", fixture.bus.address, "follow", "--exec", "true", "--focused-app"],
                                          directory: fixture.bus.directory, environment: ["PATH": "/usr/bin:/bin"])
        #expect(noSway.status == 1)
        #expect(noSway.stderr == "orientationctl: cannot talk to sway: SWAYSOCK is not set (run follow inside the session, e.g. from sway's config)\n",
                "\(noSway.stderr)")
    }

    /// --exec's command runs without holding follow up: while one waits (here on a FIFO
    /// the test opens), the device turns twice; after it, the latest change follow has by
    /// then is run (right-up, or left-up if right-up reaches follow only after the gate
    /// opened, then right-up), never a change twice; and SIGTERM stops follow at once
    /// while a command still waits, status 0. (Run in the foreground, a command that hung
    /// kept follow from its signals until it ended.)
    @Test func execCommandsRunOneAtATimeAndDoNotHoldFollowUp() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let record = fixture.bus.directory + "/applied.txt"
        let gate = fixture.bus.directory + "/gate"
        #expect(mkfifo(gate, 0o600) == 0)
        // Held open for reading and writing: opening never blocks, and a line written
        // lets the command that waits, or the next one, pass.
        let gateFD = open(gate, O_RDWR | O_CLOEXEC)
        #expect(gateFD >= 0)
        let gateHandle = FileHandle(fileDescriptor: gateFD, closeOnDealloc: true)
        let command = "echo {orientation} >> \(record); read line < \(gate)"
        let follow = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--exec", command],
                                      directory: fixture.bus.directory)
        func lines() -> [String] { ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        /// Lets the waiting command end.
        func release() { gateHandle.write(Data("go\n".utf8)) }
        #expect(waitUntil(seconds: 10) { lines() == ["normal"] }, "\(follow.stderr)")
        fixture.hold(.leftUp, durationMs: 1000)
        fixture.hold(.rightUp, durationMs: 1000)
        // The daemon has announced right-up (to follow too) while the command still waits.
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("Orientation")) == .string("right-up") })
        release()
        #expect(waitUntil(seconds: 10) { lines().count >= 2 }, "\(lines()) \(follow.stderr)")
        if lines().last == "left-up" { release() }
        #expect(waitUntil(seconds: 10) { lines().last == "right-up" }, "\(lines()) \(follow.stderr)")
        #expect([["normal", "right-up"], ["normal", "left-up", "right-up"]].contains(lines()), "\(lines())")
        #expect(follow.isRunning)
        // The right-up command waits at the gate: SIGTERM ends follow all the same. (Its
        // end shows as a zombie: the waiting command holds the descriptor by which
        // Foundation's Process would learn of it, so it is let go before the status is read.)
        follow.signal(SIGTERM)
        #expect(waitUntil(seconds: 5) { Self.hasEnded(follow) }, "state \(Self.state(follow) ?? "gone"): \(follow.stderr)")
        // Every command still waiting is let go (more than one if follow ran them in turn:
        // the test fails), before follow is waited for.
        gateHandle.write(Data(String(repeating: "go\n", count: 8).utf8))
        #expect(follow.waitForExit() == 0, "\(follow.stderr)")
    }

    /// The process's state letter from /proc (R, S, Z...); nil once it is reaped.
    static func state(_ process: ChildProcess) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return String(stat[stat.index(close, offsetBy: 2)...].prefix(1))
    }

    /// Ended: reaped, or a zombie (a child it left still holds the descriptor by which
    /// Foundation's Process would learn of its end).
    static func hasEnded(_ process: ChildProcess) -> Bool { state(process) == "Z" || !process.isRunning }

    /// A compositor that stops answering (sway stopped with SIGSTOP: swaymsg connects and
    /// then waits for a reply that does not come) does not hold follow up: SIGTERM still
    /// ends it at once, status 0, and says the transform is not restored. (Run in the
    /// foreground, swaymsg kept follow from its signals until sway answered.)
    @Test func aCompositorThatHangsDoesNotHoldFollowUp() throws {
        let sway = try HeadlessSway()
        // Not follow's first transform: its being set says follow has started.
        _ = sway.swaymsg(["output", "HEADLESS-1", "transform", "180"])
        let (fixture, peer) = try DaemonFixture.upright()
        let follow = try ChildProcess(product: "orientationctl",
                                      arguments: ["--address", fixture.bus.address, "follow", "--sway", "--restore"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "\(follow.stderr)")
        try sway.freeze()
        defer { sway.stop() }
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("Orientation")) == .string("left-up") },
                "\(fixture.daemon.stderr)\n\(follow.stderr)")
        func swaymsgRuns() -> Bool {
            let children = (try? String(contentsOfFile: "/proc/\(follow.pid)/task/\(follow.pid)/children", encoding: .utf8)) ?? ""
            return children.split(separator: " ").contains { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "") == "swaymsg\n"
            }
        }
        #expect(waitUntil(seconds: 10) { swaymsgRuns() }, "\(follow.stderr)")
        follow.signal(SIGTERM)
        #expect(waitUntil(seconds: 5) { Self.hasEnded(follow) }, "state \(Self.state(follow) ?? "gone"): \(follow.stderr)")
        sway.thaw()
        #expect(follow.waitForExit() == 0, "\(follow.stderr)")
        #expect(follow.stderr.contains("transform not restored: swaymsg output HEADLESS-1 transform 90 has not ended"), "\(follow.stderr)")
    }

    /// follow --sway with no sway to talk to: one line that names the socket variable and
    /// what it holds, status 1, and none of swaymsg's own complaints (it is asked again
    /// for 2 s, in case sway is still starting).
    @Test func unreachableSwayIsOneLine() throws {
        let (fixture, _) = try DaemonFixture.upright()
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let missing = fixture.bus.directory + "/no-sway-here"
        let unset = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--sway"],
                                         directory: fixture.bus.directory, environment: ["PATH": path])
        #expect(unset.status == 1)
        #expect(unset.stderr == "orientationctl: cannot talk to sway: SWAYSOCK is not set (run follow inside the session, e.g. from sway's config)\n",
                "\(unset.stderr)")
        let gone = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--sway"],
                                        directory: fixture.bus.directory, environment: ["PATH": path, "SWAYSOCK": missing])
        #expect(gone.status == 1)
        #expect(gone.stderr == "orientationctl: cannot talk to sway at SWAYSOCK=\(missing) (is it running?)\n", "\(gone.stderr)")
    }

    /// The iOS model for the whole screen: with --focused-app the app in front decides.
    /// Two real Wayland windows (GTK 3 through Debian's python3-gi) whose processes own
    /// clients with different supported sets; focus moves between them through sway.
    @Test func focusedAppDecidesTheScreensOrientation() throws {
        let sway = try HeadlessSway()
        let (fixture, _) = try DaemonFixture.upright()
        let script = fixture.bus.directory + "/window.py"
        try Self.windowScript.write(toFile: script, atomically: true, encoding: .utf8)
        func window(_ title: String, _ supported: String) throws -> SpawnedProcess {
            let app = try SpawnedProcess("/usr/bin/env", ["WAYLAND_DISPLAY=wayland-1", "XDG_RUNTIME_DIR=" + sway.runtime, "GDK_BACKEND=wayland",
                                                          "/usr/bin/python3", script, fixture.bus.address, title, supported],
                                         directory: fixture.bus.directory)
            // Its client is started, and sway has mapped and focused its window.
            #expect(waitUntil(seconds: 20) { app.stdout.contains("started") && sway.focusedTitle() == title },
                    "\(title): \(app.stderr) \(sway.focusedTitle() ?? "no focus")")
            return app
        }
        let free = try window("free", "normal,left-up,bottom-up,right-up")
        let portrait = try window("portrait", "normal")
        let follow = try ChildProcess(product: "orientationctl",
                                      arguments: ["--address", fixture.bus.address, "follow", "--sway", "--output", "HEADLESS-1", "--focused-app"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "follow:\n\(follow.stderr)")
        // The portrait-only app in front: the device turns, the screen does not.
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(fixture.drained())
        #expect(!waitUntil(seconds: 1) { sway.transform() != "normal" }, "\(follow.stderr)")
        // Focus the app that allows all four: the screen turns at once.
        _ = sway.swaymsg(["[title=\"^free$\"]", "focus"])
        #expect(waitUntil(seconds: 10) { sway.transform() == "90" }, "\(follow.stderr)")
        // And back.
        _ = sway.swaymsg(["[title=\"^portrait$\"]", "focus"])
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "\(follow.stderr)")
        // The portrait app closes: focus falls to the free one, whose orientation applies.
        portrait.signal(SIGTERM)
        #expect(waitUntil(seconds: 10) { sway.focusedTitle() == "free" })
        #expect(waitUntil(seconds: 10) { sway.transform() == "90" }, "\(follow.stderr)")
        fixture.hold(.rightUp, durationMs: 1000)
        #expect(waitUntil(seconds: 10) { sway.transform() == "270" }, "\(follow.stderr)")
        // The free app closes too: an empty workspace, the device orientation.
        fixture.hold(.bottomUp, durationMs: 1000)
        #expect(waitUntil(seconds: 10) { sway.transform() == "180" }, "\(follow.stderr)")
        free.signal(SIGTERM)
        #expect(waitUntil(seconds: 10) { !free.isRunning && sway.focusedTitle() == nil })
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(waitUntil(seconds: 10) { sway.transform() == "90" }, "\(follow.stderr)")
        follow.signal(SIGTERM)
        #expect(follow.waitForExit() == 0, "\(follow.stderr)")
        #expect(!follow.stderr.contains("malformed"), "\(follow.stderr)")
    }

    /// A window whose process owns one started client with the given supported set.
    static let windowScript = """
        import sys
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gio, GLib, Gtk

        address, title, supported = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
        name, root = "org.orientationd.Orientation1", "/org/orientationd/Orientation1"
        options = GLib.Variant("(a{sv})", ({"SupportedOrientations": GLib.Variant("as", supported)},))
        (path,) = bus.call_sync(name, root, name, "CreateClient", options, GLib.VariantType("(o)"), 0, -1, None).unpack()
        bus.call_sync(name, path, name + ".Client", "Start", None, None, 0, -1, None)
        window = Gtk.Window(title=title)
        window.connect("destroy", Gtk.main_quit)
        window.show_all()
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, Gtk.main_quit)
        print("started", path, flush=True)
        Gtk.main()
        """

    /// wlr-randr lists sway's headless output but cannot configure it ("failed to apply
    /// configuration": it has no modes); follow says so and keeps running. On a real
    /// panel it applies the same transforms as --sway.
    @Test func wlrRandrFailureIsLoggedAndUnknownOutputsListed() throws {
        let sway = try HeadlessSway()
        let (fixture, _) = try DaemonFixture.upright()
        let unknown = try ChildProcess.run(product: "orientationctl",
                                           arguments: ["--address", fixture.bus.address, "follow", "--wlr-randr", "--output", "NOPE"],
                                           directory: fixture.bus.directory, environment: sway.environment)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no output 'NOPE'; outputs: HEADLESS-1"), "\(unknown.stderr)")
        let follow = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--wlr-randr"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { follow.stderr.contains("wlr-randr --output HEADLESS-1 --transform normal failed") }, "\(follow.stderr)")
        #expect(follow.isRunning)
        let both = try ChildProcess.run(product: "orientationctl", arguments: ["follow", "--sway", "--wlr-randr"], directory: fixture.bus.directory)
        #expect(both.status == 2)
    }
}
