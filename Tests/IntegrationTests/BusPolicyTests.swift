@_spi(Testing) import DBus
import Foundation
import Glibc
@_spi(Testing) import Posix
import Testing
import TestSupport

/// The project's bus policy files on a private bus configured like the system bus
/// (type system, nothing owned and no method called unless a policy allows it),
/// with the unprivileged side played by `nobody` through setpriv. Needs root.
@Suite(.enabled(if: getuid() == 0, "needs root to run clients as nobody"))
struct BusPolicyTests {
    static let name = "org.orientationd.Orientation1"
    static let compatName = "net.hadess.SensorProxy"

    /// Whether the daemon has the option yet (the polkit and compat work lands separately).
    static func daemonHasOption(_ option: String) -> Bool {
        guard let directory = try? makeTemporaryDirectory(prefix: "orientationd-help"),
              let help = try? ChildProcess.run(product: "orientationd", arguments: ["--help"], directory: directory) else { return false }
        try? FileManager.default.removeItem(atPath: directory)
        return help.stdout.contains(option)
    }

    @Test func onlyRootMayOwnTheNames() throws {
        let bus = try SystemTypeBus()
        for name in [Self.name, Self.compatName] {
            let attempt = try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                                "org.freedesktop.DBus", "RequestName", "su", name, "4"])
            #expect(attempt.status != 0 && attempt.stderr.contains("Access denied"), "nobody could own \(name): \(attempt.output)")

            let root = try Connection.open(.address(bus.address))
            #expect(try root.requestName(name) == .primaryOwner)
            root.close()
        }
        // Nor may root own a name no policy grants: the base configuration denies by default.
        let root = try Connection.open(.address(bus.address))
        #expect(throws: BusError.self) { try root.requestName("org.orientationd.Other") }
        root.close()
    }

    /// An unprivileged user can use the whole API of the daemon run by root: properties,
    /// a started client with its signals, the lock, Introspectable and Peer; an interface
    /// the policy does not list is refused by the bus itself.
    @Test func nobodyCanUseTheDaemonRunByRoot() throws {
        let bus = try SystemTypeBus()
        var arguments = ["--address", bus.address, "--sensor", "simulated"]
        // On the real system bus polkit decides; here it is not running.
        if Self.daemonHasOption("--no-polkit") { arguments.append("--no-polkit") }
        let daemon = try ChildProcess(product: "orientationd", arguments: arguments, directory: bus.directory)
        #expect(try bus.waitForOwner(of: Self.name), "orientationd did not take its name:\n\(daemon.stderr)")
        let ctl = try bus.copyProduct("orientationctl")

        let get = try bus.asNobody(ctl, ["--address", bus.address, "get"])
        #expect(get.status == 0 && get.stdout.contains("HasSensor: yes"), "get as nobody: \(get.output)")

        // monitor creates and starts a client, then prints its state from the signals.
        let monitor = try bus.startAsNobody(ctl, ["--address", bus.address, "monitor"])
        _ = waitUntil(seconds: 10) { monitor.stdout.contains("state: device ") || !monitor.process.isRunning }
        #expect(monitor.stdout.contains("state: device "), "monitor as nobody: \(monitor.output)")
        monitor.process.terminate()
        #expect(waitUntil(seconds: 10) { !monitor.process.isRunning })
        #expect(monitor.process.terminationStatus == 0, "monitor as nobody: \(monitor.output)")

        let lock = try bus.asNobody(ctl, ["--address", bus.address, "lock"])
        #expect(lock.status == 0, "lock as nobody: \(lock.output)")
        let locked = try ExternalCommand.run(ctl, ["--address", bus.address, "get"], directory: bus.directory)
        #expect(locked.stdout.contains("RotationLocked: yes"), "\(locked.output)")

        let introspect = try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address, "introspect", Self.name, "/org/orientationd/Orientation1"])
        #expect(introspect.status == 0 && introspect.stdout.contains("org.orientationd.Orientation1"), "introspect as nobody: \(introspect.output)")
        let ping = try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address, "call", Self.name, "/org/orientationd/Orientation1",
                                                         "org.freedesktop.DBus.Peer", "Ping"])
        #expect(ping.status == 0, "Ping as nobody: \(ping.output)")

        let other = try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address, "call", Self.name, "/org/orientationd/Orientation1",
                                                          "org.orientationd.Private", "Anything"])
        #expect(other.status != 0 && other.stderr.contains("Access denied"), "an unlisted interface: \(other.output)")

        // Still nobody may take the name over.
        let steal = try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                          "org.freedesktop.DBus", "RequestName", "su", Self.name, "4"])
        #expect(steal.status != 0 && steal.stderr.contains("Access denied"))
        withExtendedLifetime(daemon) {}
    }

    /// The facade's policy: an unprivileged user can call net.hadess.SensorProxy of the
    /// daemon run by root; its Compass only the geoclue user (as iio-sensor-proxy's
    /// policy keeps it).
    @Test(.enabled(if: BusPolicyTests.daemonHasOption("--sensor-proxy-compat"), "orientationd has no --sensor-proxy-compat yet"))
    func nobodyCanUseTheCompatFacadeRunByRoot() throws {
        let bus = try SystemTypeBus()
        var arguments = ["--address", bus.address, "--sensor", "simulated", "--sensor-proxy-compat"]
        if Self.daemonHasOption("--no-polkit") { arguments.append("--no-polkit") }
        let daemon = try ChildProcess(product: "orientationd", arguments: arguments, directory: bus.directory)
        #expect(try bus.waitForOwner(of: Self.compatName), "orientationd did not take \(Self.compatName):\n\(daemon.stderr)")

        func busctl(_ arguments: [String]) throws -> ExternalCommand.Result {
            try bus.asNobody("/usr/bin/busctl", ["--address=" + bus.address] + arguments)
        }
        let has = try busctl(["get-property", Self.compatName, "/net/hadess/SensorProxy", "net.hadess.SensorProxy", "HasAccelerometer"])
        #expect(has.status == 0 && has.stdout.hasPrefix("b true"), "HasAccelerometer as nobody: \(has.output)")
        let claim = try busctl(["call", Self.compatName, "/net/hadess/SensorProxy", "net.hadess.SensorProxy", "ClaimAccelerometer"])
        #expect(claim.status == 0, "ClaimAccelerometer as nobody: \(claim.output)")
        let light = try busctl(["call", Self.compatName, "/net/hadess/SensorProxy", "net.hadess.SensorProxy", "ClaimLight"])
        #expect(light.status == 0, "ClaimLight as nobody: \(light.output)")
        for arguments in [["call", Self.compatName, "/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass", "ClaimCompass"],
                          ["get-property", Self.compatName, "/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass", "CompassHeading"]] {
            let denied = try busctl(arguments)
            #expect(denied.status != 0 && denied.stderr.contains("Access denied"), "\(arguments[3]) as nobody: \(denied.output)")
        }
        // The geoclue user (scripts/prerequisites.sh makes it where GeoClue is absent).
        let geoclue = getpwnam("geoclue")
        #expect(geoclue != nil, "no geoclue user")
        if let geoclue {
            let user = ["--reuid=\(geoclue.pointee.pw_uid)", "--regid=\(geoclue.pointee.pw_gid)", "--clear-groups"]
            for arguments in [["call", Self.compatName, "/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass", "ClaimCompass"],
                              ["get-property", Self.compatName, "/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass", "CompassHeading"]] {
                let allowed = try ExternalCommand.run("/usr/bin/setpriv", user + ["/usr/bin/busctl", "--address=" + bus.address] + arguments,
                                                      directory: bus.directory)
                #expect(allowed.status == 0, "\(arguments[3]) as geoclue: \(allowed.output)")
            }
        }
        let other = try busctl(["call", Self.compatName, "/net/hadess/SensorProxy", "net.hadess.SensorProxy.Private", "Anything"])
        #expect(other.status != 0 && other.stderr.contains("Access denied"), "an unlisted interface: \(other.output)")
        withExtendedLifetime(daemon) {}
    }
}

/// A private dbus-daemon configured as a system bus: the default policy of Debian's
/// system.conf (deny own, deny method calls, allow signals and expected replies, allow
/// talking to the bus), plus the repository's policy files. Its directory is open to
/// everyone so that `nobody` can reach the socket. Killed and removed when released.
final class SystemTypeBus {
    private let bus: TestBus
    var directory: String { bus.directory }
    var address: String { bus.address }

    init() throws {
        // Under /tmp, not TMPDIR: every directory on the way must be searchable by nobody.
        var template = Array("/tmp/orientationd-policy.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let directory = String(cString: made)
        guard chmod(directory, 0o755) == 0 else { throw TestFailure("chmod \(directory) failed") }
        bus = try TestBus(directory: directory, type: "system", policy: """
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
                <deny send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
              </policy>
              <include>\(repositoryRoot)/dbus/org.orientationd.Orientation1.conf</include>
              <include>\(repositoryRoot)/dbus/net.hadess.SensorProxy.conf</include>
            """)
    }

    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Runs a program as nobody to completion.
    func asNobody(_ path: String, _ arguments: [String]) throws -> ExternalCommand.Result {
        try ExternalCommand.run("/usr/bin/setpriv", Self.nobody + [path] + arguments, directory: directory)
    }

    /// Starts a program as nobody (setpriv executes it in place, so the process is it).
    func startAsNobody(_ path: String, _ arguments: [String]) throws -> Running {
        let (process, stdout, stderr) = try ExternalCommand.start("/usr/bin/setpriv", Self.nobody + [path] + arguments, directory: directory)
        return Running(process: process, stdoutPath: stdout, stderrPath: stderr)
    }

    struct Running {
        let process: Process
        let stdoutPath: String, stderrPath: String
        var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        var output: String { stdout + ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "") }
    }

    /// A copy of a built product in the bus directory, where nobody can run it.
    ///
    /// Copied by cp(1), not by this process: a file this process holds open for writing
    /// is inherited by every child another test's thread forks meanwhile, and until that
    /// child execs, running the copy fails with ETXTBSY ("Text file busy"). cp's
    /// descriptor dies with cp.
    func copyProduct(_ product: String) throws -> String {
        let copy = directory + "/" + product
        let result = try runTool("/bin/cp", [productsDirectory + "/" + product, copy])
        guard result.status == 0 else { throw TestFailure("cp \(product): \(result.stderr)") }
        return copy
    }

    /// Waits (bounded) until `name` has an owner, woken by NameOwnerChanged.
    func waitForOwner(of name: String, seconds: Double = 10) throws -> Bool {
        let connection = try Connection.open(.address(address))
        defer { connection.close() }
        var owned = false
        connection.addHandler { message in
            if message.member == "NameOwnerChanged", message.arguments.first == .string(name),
               message.arguments.count == 3, message.arguments[2] != .string("") { owned = true }
            return false
        }
        try connection.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'")
        let reply = try connection.call(try Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                               interface: "org.freedesktop.DBus", member: "NameHasOwner",
                                                               arguments: [.string(name)]))
        if reply.arguments.first == .bool(true) { return true }
        return connection.process(untilMs: MonotonicClock.milliseconds() + Int64(seconds * 1000)) { !owned } || owned
    }
}
