import Arguments
import DBus
import Glibc
import OrientationClient
import Posix
import OrientationAPI

/// `orientationctl monitor`: a started client whose every event is printed.
enum MonitorCommand {
    static let supported = TypedOption<[Orientation]>(Option("--supported", value: "LIST", help: """
        Comma-separated orientations the client supports
        (normal, left-up, bottom-up, right-up; default all).
        """)) { list throws(UsageError) in
        var supported: [Orientation] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let o = Orientation(rawValue: String(name)), o != .undefined else {
                throw UsageError("unknown orientation '\(name)' in --supported (expected normal, left-up, bottom-up, right-up)")
            }
            guard !supported.contains(o) else { throw UsageError("orientation '\(name)' is listed twice in --supported") }
            supported.append(o)
        }
        return supported
    }
    static let preferred = TypedOption<Orientation>(Option("--preferred", value: "O", help: """
        The orientation used when the device orientation is not
        supported (default: the first supported).
        """)) { name throws(UsageError) in
        guard let o = Orientation(rawValue: name), o != .undefined else { throw UsageError("unknown orientation '\(name)' for --preferred") }
        return o
    }
    static let noFollowLock = Option("--no-follow-lock", help: """
        See the real device orientation even while the rotation
        is locked.
        """)
    static let json = Option("--json", help: "One JSON object per line: {\"time\", \"event\", ...}.")

    static let command = Command(
        name: "orientationctl monitor",
        summary: "Start a client and print every change until interrupted.",
        description: """
            Creates and starts a client and prints its state, then every change, each line
            with the local time, until interrupted (Ctrl-C or SIGTERM).
            """,
        groups: [OptionGroup("Options:", [supported.option, preferred.option, noFollowLock, json, Common.help]), Common.busGroup],
        footer: """
            Lines (each starts with the local time, HH:MM:SS.mmm):
              state: device D, tilt T, interface I, content rotation R
                  at start: the client's device and interface orientations, the tilt, the
                  angle (counter-clockwise) free-standing controls turn by
              will-change: interface I -> J, content rotation R
                  before the interface orientation changes (the app's cue to animate)
              changed: device D, tilt T, interface I, content rotation R
                  after any of them changed, the whole state again
              tilt: T
                  when only the tilt changed
              sensor: NAME[, gyroscope: GYRO] | no accelerometer (HasSensor false)
                  at start when there is no sensor or it has a gyroscope, and as either
                  comes or goes
              service-lost: ... / attached: device D, tilt T, ...
                  when the daemon leaves the bus, and its state when it is back
            --json prints the same as one object per line: "event" is state,
            will-change, changed, tilt, sensor, service-lost or attached.
            """)

    static func run(_ arguments: [String]) -> Int32 {
        var exit: Int32 = 0
        guard let parsed = Common.parse(command, arguments, exitStatus: &exit) else { return exit }
        let options = (bus: Common.bus(parsed), json: parsed.has(json))
        var configuration = OrientationClient.Configuration()
        do throws(UsageError) {
            if let list = try parsed.value(supported) { configuration.supported = list }
            if let o = try parsed.value(preferred) {
                // The daemon would refuse it too (InvalidArgs); said here, before any bus,
                // as the usage error it is.
                guard configuration.supported.contains(o) else {
                    let list = configuration.supported.map(\.rawValue).joined(separator: ",")
                    throw UsageError("--preferred \(o.rawValue) is not among the --supported orientations (\(list))")
                }
                configuration.preferred = o
            }
        } catch {
            return usageError(error.message, for: "monitor")
        }
        if parsed.has(noFollowLock) { configuration.followsLock = false }

        guard let loop = interruptibleLoop() else { return 1 }
        let client: OrientationClient
        do {
            client = try OrientationClient(bus: options.bus, loop: loop, configuration: configuration)
            client.connection.onDisconnect = {
                Output.error("lost the connection to the \(options.bus)")
                loop.quit(1)
            }
            try client.start()
        } catch {
            Output.error(describe(error, bus: options.bus))
            return 1
        }
        let printer = Printer(json: options.json)
        printer.state("state", client.state)
        if !client.state.hasSensor || !client.state.gyroscopeName.isEmpty {
            printer.sensor(hasSensor: client.state.hasSensor, name: client.state.sensorName, gyroscope: client.state.gyroscopeName)
        }
        client.onEvent = { [unowned client] event in printer.event(event, gyroscope: client.state.gyroscopeName) }
        let code = loop.run()
        client.close()
        return code
    }

    /// Formats events as text or JSON lines.
    ///
    /// The signals sent while Start was being answered arrive after the state that
    /// already includes them has been printed: events that only repeat the printed
    /// state are left out, so every line says something new.
    final class Printer {
        let json: Bool
        private var shown = OrientationClient.State()

        init(json: Bool) { self.json = json }

        func state(_ kind: String, _ s: OrientationClient.State) {
            shown = s
            if json {
                Output.line(Output.json([("time", Output.epochSeconds()), ("event", Output.quote(kind)),
                                         ("device", Output.quote(s.deviceOrientation.rawValue)),
                                         ("tilt", Output.quote(s.tilt.rawValue)),
                                         ("interface", Output.quote(s.interfaceOrientation.rawValue)),
                                         ("content_rotation", String(s.contentRotation)),
                                         ("active", s.active ? "true" : "false")]))
            } else {
                Output.line("\(Output.clock()) \(kind): device \(s.deviceOrientation.rawValue), tilt \(s.tilt.rawValue), interface \(s.interfaceOrientation.rawValue), content rotation \(s.contentRotation)")
            }
        }

        /// `gyroscope`: the client's GyroscopeName as it stands after the event.
        func event(_ event: OrientationClient.Event, gyroscope: String) {
            switch event {
            case .willChange(let from, let to, let rotation):
                // A will-change announces a different interface orientation or content
                // rotation; one that leads to what is shown already was announced before.
                if to == shown.interfaceOrientation && rotation == shown.contentRotation { return }
                if json {
                    Output.line(Output.json([("time", Output.epochSeconds()), ("event", "\"will-change\""),
                                             ("from", Output.quote(from.rawValue)), ("to", Output.quote(to.rawValue)),
                                             ("content_rotation", String(rotation))]))
                } else {
                    Output.line("\(Output.clock()) will-change: interface \(from.rawValue) -> \(to.rawValue), content rotation \(rotation)")
                }
            case .changed(let s):
                if s != shown { state("changed", s) }
            case .tiltChanged(let tilt):
                if json {
                    Output.line(Output.json([("time", Output.epochSeconds()), ("event", "\"tilt\""), ("tilt", Output.quote(tilt.rawValue))]))
                } else {
                    Output.line("\(Output.clock()) tilt: \(tilt.rawValue)")
                }
            case .serviceLost:
                if json {
                    Output.line(Output.json([("time", Output.epochSeconds()), ("event", "\"service-lost\"")]))
                } else {
                    Output.line("\(Output.clock()) service-lost: orientationd left the bus; waiting for it to return")
                }
            case .attached(let s):
                state("attached", s)
                if !s.hasSensor || !s.gyroscopeName.isEmpty { sensor(hasSensor: s.hasSensor, name: s.sensorName, gyroscope: s.gyroscopeName) }
            case .sensorChanged(let hasSensor, let name):
                sensor(hasSensor: hasSensor, name: name, gyroscope: gyroscope)
            case .lockChanged:
                // The lock shows in what it does to the orientation; `get` prints it.
                break
            }
        }

        func sensor(hasSensor: Bool, name: String, gyroscope: String) {
            if json {
                Output.line(Output.json([("time", Output.epochSeconds()), ("event", "\"sensor\""),
                                         ("has_sensor", hasSensor ? "true" : "false"), ("name", Output.quote(name)),
                                         ("gyroscope", Output.quote(gyroscope))]))
            } else if hasSensor {
                Output.line("\(Output.clock()) sensor: \(name)" + (gyroscope.isEmpty ? "" : ", gyroscope: \(gyroscope)"))
            } else {
                Output.line("\(Output.clock()) sensor: no accelerometer (HasSensor false); waiting for one")
            }
        }
    }
}
