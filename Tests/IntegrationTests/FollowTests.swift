import DBus
import Foundation
import Glibc
import Testing

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
        process.signal(SIGTERM)
        _ = waitUntil(seconds: 10) { !process.isRunning }
    }

    func swaymsg(_ arguments: [String]) -> String {
        (try? ExternalCommand.run("/usr/bin/swaymsg", arguments, directory: runtime, environment: ["SWAYSOCK": socket]).stdout) ?? ""
    }

    /// HEADLESS-1's transform as sway reports it.
    func transform() -> String? {
        let json = swaymsg(["-t", "get_outputs", "-r"])
        guard let range = json.firstRange(of: "\"transform\": \"") else { return nil }
        return String(json[range.upperBound...].prefix { $0 != "\"" })
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
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())
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
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())
        let follow = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "follow", "--sway"],
                                      directory: fixture.bus.directory, environment: sway.environment)
        #expect(waitUntil(seconds: 10) { sway.transform() == "normal" }, "\(follow.stderr)")
        sway.stop()
        fixture.hold(.leftUp, durationMs: 1000)
        #expect(follow.waitForExit() == 1)
        #expect(follow.stderr.contains("the compositor is gone"), "\(follow.stderr)")
    }

    @Test func execRunsTheCommandAndSurvivesItsFailures() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())
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
    }

    /// wlr-randr lists sway's headless output but cannot configure it ("failed to apply
    /// configuration": it has no modes); follow says so and keeps running. On a real
    /// panel it applies the same transforms as --sway.
    @Test func wlrRandrFailureIsLoggedAndUnknownOutputsListed() throws {
        let sway = try HeadlessSway()
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())
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
