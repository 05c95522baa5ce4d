import CGtk4
import Glibc
import OrientationClient

/// The command line of orientation-demo.
enum DemoCommand {
    static let help = """
        Usage: orientation-demo [--system | --session | --address ADDRESS]
                                [--state-log FILE] [--screenshots DIR]

        The four behaviours of orientationd's per-app API, drawn: a phone outline turned
        by DeviceOrientation, the interface inside it laid out for InterfaceOrientation,
        free-standing content turned by ContentRotation. Pages: Camera (static main view,
        rotating controls), Relay (OrientationWillChange relayed to every observer),
        Navigation (per-page supported orientations forwarded with
        SetSupportedOrientations) and Matching (an image that turns only into the
        orientations it allows). The window also shows the sensor and a rotation lock.

          --system            The daemon on the system bus (the default).
          --session           The daemon on the session bus.
          --address ADDRESS   The daemon on the bus at ADDRESS.
          --state-log FILE    Write one line per change to FILE: event, page, device,
                              interface, content rotation, supported set.
          --screenshots DIR   Save DIR/PAGE-ORIENTATION.png for every page at each new
                              device orientation; exit after the fourth.
          -h, --help          Show this help and exit.

        Starts before the daemon ("waiting for orientationd") and survives it going away
        and coming back. Needs a display (X11 or Wayland). Exit status: 0 when the window
        closes or on SIGINT/SIGTERM, 1 on an error, 2 on a usage error.
        """

    static func main(_ arguments: [String]) -> Int32 {
        var options = DemoApp.Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                print(help)
                return 0
            case "--system": options.bus = .system
            case "--session": options.bus = .session
            case "--address", "--state-log", "--screenshots":
                guard let value = rest.popFirst(), !value.isEmpty else { return usage("option \(argument) needs a value") }
                switch argument {
                case "--address": options.bus = .address(value)
                case "--state-log":
                    // A log asked for and not writable is an error, not a silent loss.
                    guard let log = StateLog(path: value) else { return 1 }
                    options.stateLog = log
                default:
                    var info = stat()
                    guard stat(value, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(value, W_OK | X_OK) == 0 else {
                        printError("orientation-demo: --screenshots needs a writable directory: \(value)")
                        return 1
                    }
                    options.screenshots = value
                }
            default:
                return usage("unexpected argument '\(argument)'")
            }
        }
        guard gtk_init_check() != 0 else {
            printError("orientation-demo: cannot open a display (set DISPLAY or WAYLAND_DISPLAY)\n")
            return 1
        }
        let app: DemoApp
        do throws(OrientationClient.Error) {
            app = try DemoApp(options: options)
        } catch {
            printError("orientation-demo: cannot reach the bus: \(error.message)\n")
            return 1
        }
        return app.run()
    }

    static func usage(_ message: String) -> Int32 {
        printError("orientation-demo: \(message)\ntry 'orientation-demo --help' for more information\n")
        return 2
    }
}
