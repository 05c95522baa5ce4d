import Arguments
import DBus

/// The daemon's command line.
struct DaemonOptions {
    enum SensorChoice: Equatable {
        case auto, simulated
        case replay(String)
    }

    var bus: Connection.Bus = .system
    var sensor: SensorChoice?
    var configPath: String?
    /// nil: polkit on the system bus only.
    var polkit: Bool?
    var sensorProxyCompat = false
    var busIntrospect = false
    var verbose = false
    var help = false
    var version = false

    static let command = Command(
        name: "orientationd",
        summary: "The device orientation service.",
        description: """
            Reads the display accelerometer and publishes the device orientation on D-Bus as
            org.orientationd.Orientation1, with a client object per app that says which
            orientations the app supports and gets the orientation its interface should use.
            """,
        groups: [OptionGroup("Bus (the last one counts):", [system, session, address], form: .lastWins),
                 OptionGroup("Options:", [sensor.option, config]),
                 OptionGroup("Authorization (the last one counts):", [noPolkit, polkit], form: .lastWins),
                 OptionGroup("Other options:", [sensorProxyCompat, busIntrospect, verbose, help, version])],
        footer: footer)

    static let system = Option("--system", help: "Connect to the system bus (the default).")
    static let session = Option("--session", help: "Connect to the session bus (development, demos, tests).")
    static let address = Option("--address", value: "ADDRESS", help: "Connect to the bus at ADDRESS, e.g. unix:path=/tmp/bus.")
    static let sensor = TypedOption<SensorChoice>(Option("--sensor", value: "SENSOR", help: """
                Where samples come from:
                  auto          accelerometers found through udev,
                                followed as they come and go (the
                                default, on every bus)
                  simulated     a simulated device turned through the
                                four orientations and laid flat, in a
                                loop (demos and development only)
                  replay:PATH   "t_ms,x,y,z" lines in m/s^2 from a file
                                (played at the pace of its timestamps,
                                with the gyroscope recorded beside it in
                                gyro/NAME, if any), a FIFO or "-" for
                                standard input (applied as lines arrive;
                                a file redirected in is played as a file)
                """), convert: parseSensor)
    static let config = Option("--config", value: "PATH", help: """
                Read the configuration from PATH instead of
                /etc/orientationd/orientationd.conf (engine tunables,
                poll interval, per-sensor mount matrices). An invalid
                file stops the daemon at start; SIGHUP reloads it and
                keeps the previous configuration if the new one is
                invalid.
                """)
    static let noPolkit = Option("--no-polkit", help: """
                Do not ask polkit: allow every caller to start clients and
                to set RotationLocked (systems without polkit). On the
                system bus polkit is asked by default, for the actions
                org.orientationd.Orientation1.claim (Start),
                org.orientationd.Orientation1.lock (RotationLocked) and
                net.hadess.SensorProxy.claim-sensor (ClaimAccelerometer).
                """)
    static let polkit = Option("--polkit", help: """
                Ask polkit on other buses too (testing a bus that is not
                the system bus).
                """)
    static let sensorProxyCompat = Option("--sensor-proxy-compat", help: """
                Also own net.hadess.SensorProxy and serve iio-sensor-
                proxy's interfaces: orientation from the same sensor
                and engine, and the machine's ambient light, proximity
                and compass, so that its clients (GNOME, KDE, phosh,
                GeoClue, monitor-sensor) keep working.
                """)
    static let busIntrospect = Option("--bus-introspect", help: """
                Print the exported interfaces as introspection XML with
                their documentation, and exit; with --sensor-proxy-
                compat, iio-sensor-proxy's interfaces as the facade
                serves them.
                """)
    static let verbose = Option("-v", "--verbose", help: "Log every client and sensor event to standard error.")
    static let help = Option("-h", "--help", help: "Show this help and exit.")
    static let version = Option("--version", help: "Show the version and exit.")
    static let footer = """
            Signals: SIGTERM and SIGINT stop the daemon cleanly (exit status 0); SIGHUP
            reloads the configuration and reopens the sensor, keeping every client.
            Exit status: 0 on a clean stop, 1 on a runtime error (bus unreachable, name
            already owned, bus connection lost), 2 on a usage error, 78 (EX_CONFIG) on an
            invalid configuration file (one line names the file, the line and the key).

            See orientationctl(1) to query and monitor the service.
            """

    static var usage: String { command.help }

    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        let parsed = try command.parse(arguments)
        var options = DaemonOptions()
        switch parsed.last(of: [system, session, address]) {
        case let (option, _)? where option == session: options.bus = .session
        case let (option, value?)? where option == address: options.bus = .address(value)
        default: options.bus = .system
        }
        options.sensor = try parsed.value(sensor)
        if let path = parsed.value(config) {
            guard !path.isEmpty else { throw UsageError("option --config needs a path") }
            options.configPath = path
        }
        if let (option, _) = parsed.last(of: [polkit, noPolkit]) { options.polkit = option == polkit }
        options.sensorProxyCompat = parsed.has(sensorProxyCompat)
        options.busIntrospect = parsed.has(busIntrospect)
        options.verbose = parsed.has(verbose)
        options.help = parsed.has(help)
        options.version = parsed.has(version)
        return options
    }

    @Sendable static func parseSensor(_ text: String) throws(UsageError) -> SensorChoice {
        switch text {
        case "auto": return .auto
        case "simulated": return .simulated
        default:
            if text.hasPrefix("replay:"), text.count > "replay:".count { return .replay(String(text.dropFirst("replay:".count))) }
            throw UsageError("unknown sensor '\(text)' (expected auto, simulated or replay:PATH)")
        }
    }

    var usesPolkit: Bool { polkit ?? (bus == .system) }

    /// The sensor to use: the real one unless another was asked for, on every bus. A
    /// simulated device must never stand in for the real one unnoticed.
    var effectiveSensor: SensorChoice { sensor ?? .auto }
}
