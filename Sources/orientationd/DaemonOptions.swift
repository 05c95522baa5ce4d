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

    static let usage = """
        Usage: orientationd [OPTIONS]

        Reads the display accelerometer and publishes the device orientation on D-Bus as
        org.orientationd.Orientation1, with a client object per app that says which
        orientations the app supports and gets the orientation its interface should use.

        Options:
          --system            Connect to the system bus (the default).
          --session           Connect to the session bus (development, demos, tests).
          --address ADDRESS   Connect to the bus at ADDRESS, e.g. unix:path=/tmp/bus.
          --sensor SENSOR     Where samples come from:
                                auto          accelerometers found through udev,
                                              followed as they come and go (the
                                              default, on every bus)
                                simulated     a simulated device turned through the
                                              four orientations and laid flat, in a
                                              loop (demos and development only)
                                replay:PATH   "t_ms,x,y,z" lines in m/s^2 from a file
                                              (played at the pace of its timestamps),
                                              a FIFO or "-" for standard input
                                              (applied as lines arrive)
          --config PATH       Read the configuration from PATH instead of
                              /etc/orientationd/orientationd.conf (engine tunables,
                              poll interval, per-sensor mount matrices). An invalid
                              file stops the daemon at start; SIGHUP reloads it and
                              keeps the previous configuration if the new one is
                              invalid.
          --no-polkit         Do not ask polkit: allow every caller to start clients and
                              to set RotationLocked (systems without polkit). On the
                              system bus polkit is asked by default, for the actions
                              org.orientationd.Orientation1.claim (Start),
                              org.orientationd.Orientation1.lock (RotationLocked) and
                              net.hadess.SensorProxy.claim-sensor (ClaimAccelerometer).
          --polkit            Ask polkit on other buses too (testing a bus that is not
                              the system bus).
          --sensor-proxy-compat
                              Also own net.hadess.SensorProxy and serve iio-sensor-
                              proxy's interface from the same sensor and engine, so
                              that its clients (GNOME, KDE, phosh, monitor-sensor)
                              keep working.
          --bus-introspect    Print the exported interfaces as introspection XML with
                              their documentation, and exit.
          -v, --verbose       Log every client and sensor event to standard error.
          -h, --help          Show this help and exit.
          --version           Show the version and exit.

        Signals: SIGTERM and SIGINT stop the daemon cleanly (exit status 0); SIGHUP
        reloads the configuration and reopens the sensor, keeping every client.
        Exit status: 0 on a clean stop, 1 on a runtime error (bus unreachable, name
        already owned, bus connection lost), 2 on a usage error, 78 (EX_CONFIG) on an
        invalid configuration file (one line names the file, the line and the key).

        See orientationctl(1) to query and monitor the service.
        """

    struct UsageError: Error { var message: String }

    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var index = 0
        var inlineValue: String?
        func value(for flag: String) throws(UsageError) -> String {
            if let inlineValue { return inlineValue }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "option \(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            var argument = arguments[index]
            inlineValue = nil
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            switch argument {
            case "--system": options.bus = .system
            case "--session": options.bus = .session
            case "--address": options.bus = .address(try value(for: argument))
            case "--sensor": options.sensor = try parseSensor(try value(for: argument))
            case "--config":
                let path = try value(for: argument)
                guard !path.isEmpty else { throw UsageError(message: "option --config needs a path") }
                options.configPath = path
            case "--bus-introspect": options.busIntrospect = true
            case "--no-polkit": options.polkit = false
            case "--polkit": options.polkit = true
            case "--sensor-proxy-compat": options.sensorProxyCompat = true
            case "-v", "--verbose": options.verbose = true
            case "-h", "--help": options.help = true
            case "--version": options.version = true
            default:
                throw UsageError(message: argument.hasPrefix("-") ? "unknown option \(argument)" : "unexpected argument \(argument)")
            }
            index += 1
        }
        return options
    }

    static func parseSensor(_ text: String) throws(UsageError) -> SensorChoice {
        switch text {
        case "auto": return .auto
        case "simulated": return .simulated
        default:
            if text.hasPrefix("replay:"), text.count > "replay:".count { return .replay(String(text.dropFirst("replay:".count))) }
            throw UsageError(message: "unknown sensor '\(text)' (expected auto, simulated or replay:PATH)")
        }
    }

    var usesPolkit: Bool { polkit ?? (bus == .system) }

    /// The sensor to use: the real one unless another was asked for, on every bus. A
    /// simulated device must never stand in for the real one unnoticed.
    var effectiveSensor: SensorChoice { sensor ?? .auto }
}
