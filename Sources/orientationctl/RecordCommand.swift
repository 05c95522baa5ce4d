import Arguments
import Glibc
import OrientationEngine
import Posix
import Sensors

/// `orientationctl record`: the live accelerometer as a replay trace, read with the
/// daemon's own discovery and backends, for bug reports and test cases.
enum RecordCommand {
    static let seconds = TypedOption<Double>(Option("--seconds", value: "N", help: "Stop after N seconds (default: until Ctrl-C or SIGTERM).")) {
        text throws(UsageError) in
        guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
            throw UsageError("option --seconds needs a number of seconds above 0 (at most 86400)")
        }
        return value
    }
    static let output = Option("--output", value: "FILE", help: "Write the trace to FILE (default: standard output).")
    static let config = Option("--config", value: "PATH", help: """
        The configuration file (default
        /etc/orientationd/orientationd.conf, if present).
        """)

    static let command = Command(
        name: "orientationctl record",
        summary: "Record the accelerometer as a replay trace (for bug reports).",
        description: """
            Reads the accelerometer the daemon would choose (udev discovery, the same
            backends, scale and mount matrix, and the mount-matrix overrides of the
            configuration file) and writes what it reads as a replay trace: one
            "t_ms,x,y,z" line per sample, milliseconds from the first sample, m/s^2 in the
            engine's frame (upright at rest reads 0,-9.81,0). The trace replays
            with 'orientationctl replay FILE' and 'orientationd --sensor replay:FILE'.
            With --output FILE, a gyroscope read with the accelerometer (the manager's
            GyroscopeName) is recorded beside it in gyro/FILE (rad/s, the same frame and
            clock), where both of those read it back.
            """,
        groups: [OptionGroup("Options:", [seconds.option, output, config, Common.help])],
        footer: """
            Run it as root, as the daemon runs: device nodes and IIO attributes usually
            belong to root. While the daemon holds an IIO buffer, the same device is
            polled instead. A line that cannot be written (a full disk) stops the
            recording with one line. Exit status: 0 after recording, 1 when no
            accelerometer can be read or the trace cannot be written, 2 on a usage
            error.
            """)

    static func run(_ arguments: [String]) -> Int32 {
        var exit: Int32 = 0
        guard let parsed = Common.parse(command, arguments, exitStatus: &exit) else { return exit }
        let seconds: Double?
        do {
            seconds = try parsed.value(Self.seconds)
        } catch {
            return usageError(error.message, for: "record")
        }
        let outputPath = parsed.value(output)
        if outputPath?.isEmpty == true { return usageError("option --output needs a file name", for: "record") }
        let configPath = parsed.value(config)
        if configPath?.isEmpty == true { return usageError("option --config needs a path", for: "record") }

        let configuration: Configuration
        switch Configuration.load(path: configPath ?? Configuration.defaultPath, optional: configPath == nil) {
        case .success(let loaded): configuration = loaded
        case .failure(let error):
            Output.error("invalid configuration: \(error)")
            return 1
        }
        guard let loop = interruptibleLoop() else { return 1 }
        let logger = Logger(program: "orientationctl record")
        guard let monitor = SensorMonitor(loop: loop, logger: logger, settings: { configuration.settings(for: $0) }) else {
            Output.error("cannot use udev: no accelerometer can be found")
            return 1
        }
        guard let sensor = monitor.start() else {
            Output.error("no accelerometer can be read"
                + (getuid() == 0 ? "" : " (device nodes and IIO attributes usually need root: try sudo)"))
            return 1
        }
        let output: FileDescriptor
        if let outputPath {
            do { output = try FileDescriptor.open(outputPath, [.writeOnly, .create, .truncate]) } catch {
                Output.error("cannot write '\(outputPath)': \(error)")
                return 1
            }
        } else {
            output = .standardOutput
        }
        let fd = output.rawValue
        defer { withExtendedLifetime(output) {} }
        // A line that cannot be written (a full disk, a closed pipe) stops the recording
        // with one line: a trace silently cut short would pass for a whole one.
        var writeFailed = false
        func write(_ fd: Int32, _ text: String, to path: String?) -> Bool {
            guard !writeFailed else { return false }
            do { try FileDescriptor(borrowing: fd).writeAll(text) } catch {
                writeFailed = true
                Output.error("cannot write \(path.map { "'\($0)'" } ?? "standard output"): \(error): recording stopped")
                loop.quit(1)
                return false
            }
            return true
        }
        guard write(fd, "# orientationctl record: \(sensor.name) (\(sensor.kind.rawValue)); t_ms,x,y,z in m/s^2\n", to: outputPath) else {
            return 1
        }
        var first: Int64?
        var count = 0
        monitor.onChange = { [weak loop] replacement in
            Output.error(replacement == nil ? "the accelerometer went away: recording stopped"
                                            : "the accelerometer changed: recording stopped")
            loop?.quit(1)
        }
        var gyroOutput: FileDescriptor?
        var gyroCount = 0
        var gyroPath = ""
        if let outputPath, let gyroName = sensor.gyroscopeName {
            let path = ReplaySensor.gyroscopePath(beside: outputPath)
            gyroPath = path
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            _ = mkdir(directory, 0o755)
            do {
                let fd = try FileDescriptor.open(path, [.writeOnly, .create, .truncate])
                guard write(fd.rawValue, "# orientationctl record: \(gyroName); t_ms,x,y,z in rad/s\n", to: path) else { return 1 }
                gyroOutput = fd
            } catch {
                Output.error("cannot write '\(path)': \(error); the gyroscope is not recorded")
            }
        }
        do {
            try sensor.start { sample in
                let t0 = first ?? sample.timeMs
                first = t0
                if write(fd, "\(sample.timeMs - t0),\(number(sample.x)),\(number(sample.y)),\(number(sample.z))\n", to: outputPath) {
                    count += 1
                }
            }
        } catch {
            Output.error("cannot read \(sensor.name): \(error)")
            return 1
        }
        if let gyroFd = gyroOutput?.rawValue {
            sensor.startGyroscope { rate in
                let t0 = first ?? rate.timeMs
                first = t0
                if write(gyroFd, "\(rate.timeMs - t0),\(number(rate.x)),\(number(rate.y)),\(number(rate.z))\n", to: gyroPath) {
                    gyroCount += 1
                }
            }
        }
        var stopTimer: Posix.Timer?
        if let seconds {
            stopTimer = try? Posix.Timer(loop: loop) { [weak loop] in loop?.quit(0) }
            stopTimer?.arm(afterMs: Int64((seconds * 1000).rounded()))
        }
        let status = loop.run()
        sensor.stop()
        withExtendedLifetime((monitor, stopTimer, gyroOutput)) {}
        Output.error("recorded \(count) samples from \(sensor.name)"
            + (gyroOutput == nil ? "" : " and \(gyroCount) from its gyroscope"))
        return status
    }

    /// Four decimals, without a locale ("-9.8066", "0").
    static func number(_ value: Double) -> String {
        SysfsNumber.format((value * 10_000).rounded() / 10_000)
    }
}
