import Foundation
import Testing
import TestSupport

/// The executables' command lines: help, usage errors, exit statuses, introspection XML.
@Suite struct CommandLineTests {
    let directory: String

    init() throws { directory = try makeTemporaryDirectory(prefix: "orientationd-cli") }

    @Test func unknownFlagIsAUsageError() throws {
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--frobnicate"], directory: directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '--frobnicate'"))
        #expect(result.stderr.contains("--help"))
        let ctl = try ChildProcess.run(product: "orientationctl", arguments: ["--session", "frobnicate"], directory: directory)
        #expect(ctl.status == 2)
        #expect(ctl.stderr.contains("unknown command 'frobnicate'"))
        // Before the command only bus options may come: anything else is named, not
        // taken for a missing command nor dropped on the way to one.
        for arguments in [["--frobnicate"], ["--frobnicate", "get"], ["--frobnicate=1", "replay", "-"]] {
            let early = try ChildProcess.run(product: "orientationctl", arguments: arguments, directory: directory)
            #expect(early.status == 2, "\(arguments): \(early.stderr)")
            #expect(early.stderr.contains("unknown option '--frobnicate'"), "\(arguments): \(early.stderr)")
        }
        // `--address=ADDRESS` is a bus option too: the command runs, and finds no bus there.
        let joined = try ChildProcess.run(product: "orientationctl", arguments: ["--address=unix:path=\(directory)/no-bus", "get"],
                                          directory: directory)
        #expect(joined.status == 1, "\(joined.stderr)")
        #expect(joined.stderr.contains("cannot connect"), "\(joined.stderr)")
    }

    @Test func badSensorIsAUsageError() throws {
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--session", "--sensor", "magic"], directory: directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown sensor 'magic'"))
    }

    @Test func helpAndVersion() throws {
        let help = try ChildProcess.run(product: "orientationd", arguments: ["--help"], directory: directory)
        #expect(help.status == 0)
        for option in ["--system", "--session", "--address", "--sensor", "--bus-introspect", "--verbose", "--version", "replay:PATH"] {
            #expect(help.stdout.contains(option), "orientationd --help does not mention \(option)")
        }
        let version = try ChildProcess.run(product: "orientationd", arguments: ["--version"], directory: directory)
        #expect(version.stdout.hasPrefix("orientationd "))
        let ctlHelp = try ChildProcess.run(product: "orientationctl", arguments: ["--help"], directory: directory)
        for command in ["get", "monitor", "lock", "unlock", "replay"] {
            #expect(ctlHelp.stdout.contains("  \(command)"), "orientationctl --help does not mention \(command)")
        }
    }

    /// Every subcommand answers --help with its own usage (exit 0), and every usage error
    /// exits 2.
    /// Output that cannot be written (standard output on /dev/full: every write fails
    /// with ENOSPC) is one line and status 1, never a cut-short result with status 0.
    @Test(arguments: [
        ["orientationd", "--bus-introspect"], ["orientationd", "--help"], ["orientationctl", "--help"],
        ["orientationctl", "replay", "--help"], ["orientationctl", "replay", repositoryRoot + "/examples/traces/quarter-turn.csv"],
    ])
    func outputThatCannotBeWrittenIsAnError(command: [String]) throws {
        let program = SanitizerRun.executable(for: command[0])
        let result = try ChildProcess.run(product: "/bin/sh", arguments: ["-c", "exec \"$0\" \"$@\" > /dev/full", program] + command.dropFirst(),
                                          directory: directory)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "\(command[0]): \(command[0] == "orientationd" ? "error: " : "")cannot write standard output: No space left on device\n",
                "\(result.stderr)")
    }

    @Test func everySubcommandHasHelpAndUsageErrorsExitTwo() throws {
        let directory = try makeTemporaryDirectory(prefix: "orientationctl-help")
        for command in ["get", "monitor", "lock", "unlock", "replay", "record", "follow"] {
            let help = try ChildProcess.run(product: "orientationctl", arguments: [command, "--help"], directory: directory)
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            #expect(help.stdout.contains("orientationctl \(command)"), "\(command) --help:\n\(help.stdout)")
            let bad = try ChildProcess.run(product: "orientationctl", arguments: [command, "--frobnicate"], directory: directory)
            #expect(bad.status == 2, "\(command) --frobnicate exited \(bad.status)")
            #expect(bad.stderr.contains("unknown option '--frobnicate'"), "\(command): \(bad.stderr)")
            // Where to read more: the subcommand's own help.
            if command != "replay" {
                #expect(bad.stderr.contains("try 'orientationctl \(command) --help'"), "\(command): \(bad.stderr)")
            }
        }
        let unknown = try ChildProcess.run(product: "orientationctl", arguments: ["frobnicate"], directory: directory)
        #expect(unknown.status == 2)
        // Values the daemon would refuse are usage errors too, said before any bus is
        // tried (no daemon runs here: a bus error would exit 1).
        let refused: [([String], String)] = [
            (["monitor", "--preferred", "right-up", "--supported", "normal"], "--preferred right-up is not among the --supported orientations (normal)"),
            (["monitor", "--supported", "normal,normal"], "orientation 'normal' is listed twice in --supported"),
            (["monitor", "--supported", "sideways"], "unknown orientation 'sideways' in --supported"),
            (["monitor", "--preferred", "undefined"], "unknown orientation 'undefined' for --preferred"),
            (["follow", "--sway", "--exec", "true"], "choose one of --sway, --wlr-randr and --exec"),
            (["get", "extra"], "unexpected argument 'extra'"),
        ]
        for (arguments, message) in refused {
            let result = try ChildProcess.run(product: "orientationctl", arguments: ["--address", "unix:path=\(directory)/no-bus"] + arguments,
                                              directory: directory)
            #expect(result.status == 2, "\(arguments) exited \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func lockToggleFlipsAndPrintsTheNewState() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        for expected in ["locked", "unlocked", "locked"] {
            let toggle = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "lock", "--toggle"],
                                              directory: fixture.bus.directory)
            #expect(toggle.status == 0, "\(toggle.stderr)")
            #expect(toggle.stdout == expected + "\n")
            #expect(try peer.managerProperty("RotationLocked") == .bool(expected == "locked"))
        }
    }

    @Test func unreachableBusIsOneClearErrorLine() throws {
        let address = "unix:path=\(directory)/no-such-bus"
        let daemon = try ChildProcess.run(product: "orientationd", arguments: ["--address", address, "--sensor", "simulated"], directory: directory)
        #expect(daemon.status == 1)
        let lines = daemon.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(daemon.stderr.hasPrefix("orientationd: error: cannot connect to the bus at \(address)"))
        let ctl = try ChildProcess.run(product: "orientationctl", arguments: ["--address", address, "get"], directory: directory)
        #expect(ctl.status == 1)
        #expect(ctl.stderr.hasPrefix("orientationctl: cannot connect to the bus at \(address)"))
    }

    @Test func unreadableReplayFileIsAnError() throws {
        let bus = try TestBus()
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:/nonexistent/trace.csv"],
                                          directory: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/trace.csv"))
    }

    /// The documented XML in dbus/ is what the daemon really exports.
    @Test func documentedXMLMatchesBusIntrospect() throws {
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--bus-introspect"], directory: directory)
        #expect(result.status == 0)
        let documented = try String(contentsOfFile: repositoryRoot + "/dbus/org.orientationd.Orientation1.xml", encoding: .utf8)
        #expect(normalised(result.stdout) == normalised(documented),
                "dbus/org.orientationd.Orientation1.xml differs from `orientationd --bus-introspect`; regenerate it")
        #expect(result.stdout.contains("<interface name=\"org.orientationd.Orientation1.Client\">"))
    }

    /// The facade's documented XML is what it serves: every member of iio-sensor-proxy's
    /// two interfaces, each with its documentation.
    @Test func documentedFacadeXMLMatchesBusIntrospect() throws {
        let result = try ChildProcess.run(product: "orientationd", arguments: ["--bus-introspect", "--sensor-proxy-compat"], directory: directory)
        #expect(result.status == 0)
        let documented = try String(contentsOfFile: repositoryRoot + "/dbus/net.hadess.SensorProxy.xml", encoding: .utf8)
        #expect(normalised(result.stdout) == normalised(documented),
                "dbus/net.hadess.SensorProxy.xml differs from `orientationd --bus-introspect --sensor-proxy-compat`; regenerate it")
        for member in ["ClaimAccelerometer", "ReleaseAccelerometer", "ClaimLight", "ReleaseLight", "ClaimProximity",
                       "ReleaseProximity", "HasAccelerometer", "AccelerometerOrientation", "AccelerometerTilt", "HasAmbientLight",
                       "LightLevelUnit", "LightLevel", "HasProximity", "ProximityNear", "ClaimCompass", "ReleaseCompass",
                       "HasCompass", "CompassHeading"] {
            #expect(result.stdout.contains("name=\"\(member)\""), "\(member) is not in the facade's XML")
            // Its documentation: a comment naming it, then a paragraph.
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let heading = lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(member):") }
            let text = heading.flatMap { lines.indices.contains($0 + 2) ? lines[$0 + 2].trimmingCharacters(in: .whitespaces) : nil }
            #expect(!(text ?? "").isEmpty && text != "-->", "\(member) is not documented")
        }
    }

    @Test func orientationctlGetReportsTheDaemonNotRunning() throws {
        let bus = try TestBus()
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["--address", bus.address, "get"], directory: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("orientationd is not running"))
    }

    @Test func orientationctlGetAndJSON() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.peer()
        let text = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "get"], directory: directory)
        #expect(text.status == 0)
        #expect(text.stdout.contains("SensorBackend: replay\nSensorDevice: (none)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("Orientation: undefined"))
        let json = try ChildProcess.run(product: "orientationctl", arguments: ["get", "--json", "--address", fixture.bus.address], directory: directory)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["HasSensor"] as? Bool == true)
        #expect(object?["SensorBackend"] as? String == "replay")
        #expect(object?["SensorDevice"] as? String == "")
        #expect(object?["ActiveClients"] as? Int == 0)
    }

    @Test func orientationctlMonitorPrintsChanges() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let monitor = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor", "--json"],
                                       directory: fixture.bus.directory)
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(1) })
        // Rotate only once the monitor has shown its first state.
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("\"event\": \"state\"") })
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("\"device\": \"left-up\"") })
        monitor.signal(SIGINT)
        #expect(monitor.waitForExit() == 0)
        let lines = monitor.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(lines.first?.contains("\"event\": \"state\"") == true)
        #expect(lines.contains { $0.contains("\"event\": \"will-change\"") && $0.contains("\"to\": \"left-up\"") })
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(0) })
    }
}

/// Whitespace-insensitive form of an XML document.
func normalised(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
        .replacingOccurrences(of: "> <", with: "><")
}
