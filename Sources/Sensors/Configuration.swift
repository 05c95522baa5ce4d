import Glibc
import OrientationEngine
import Posix

/// The daemon's configuration file, `/etc/orientationd/orientationd.conf` by default
/// (`--config PATH` to use another). An INI file: `[Section]` headers, `Key=Value`
/// lines, comments starting with `#` or `;`, blank lines ignored. Every key is optional;
/// an absent file means the defaults. Numbers are parsed without regard to the locale.
///
///     [Engine]
///     # Any key of the orientation engine (see EngineTunables), e.g.:
///     OrientationSettleMs=100
///
///     [Sensor]
///     # Poll interval of IIO sensors read by polling, 10–10000 ms (default 100); an
///     # IIO accelerometer, polled or buffered, is set to sample at least as fast.
///     PollIntervalMs=100
///     # An IIO buffer that delivers no usable frame this long after it is enabled is
///     # replaced by polling the same device, 100–60000 ms (default 2000).
///     BufferSilenceMs=2000
///     # Opt-in: while an evdev switch reports SW_TABLET_MODE = 0 (a convertible used
///     # as a laptop), the orientation does not change (default false).
///     LaptopModeSuppression=false
///     # A gyroscope on the accelerometer's own device is fused with it (auto), or not
///     # read at all (off); default auto.
///     Gyroscope=auto
///
///     [Sensor accel_3d]
///     # Per-sensor section: the word after "Sensor" is a shell pattern matched against
///     # the sensor's name (IIO `name`, input device name), its kernel name
///     # (iio:device0, event3) or its modalias. The first matching section applies.
///     # MountMatrix overrides udev's ACCEL_MOUNT_MATRIX and the sysfs mount matrix.
///     MountMatrix=0, 1, 0; -1, 0, 0; 0, 0, 1
///
/// An invalid file is rejected as a whole, with its line and key named.
public struct Configuration: Sendable, Equatable {
    public static let defaultPath = "/etc/orientationd/orientationd.conf"

    public var tunables = EngineTunables.default
    public var pollIntervalMs = 100
    public var bufferSilenceMs = 2000
    public var laptopModeSuppression = false
    /// `[Sensor] Gyroscope`: auto (true) fuses a gyroscope found with the accelerometer.
    public var gyroscope = true
    public var sensorRules: [SensorRule] = []

    public init() {}

    /// A `[Sensor PATTERN]` section.
    public struct SensorRule: Sendable, Equatable {
        public var pattern: String
        public var mountMatrix: MountMatrix?
        public var line: Int

        public func matches(_ device: DeviceDescription) -> Bool {
            [device.shortName, device.sysname, device.modalias].compactMap { $0 }.contains { fnmatch(pattern, $0, 0) == 0 }
        }
    }

    /// The backend settings for one device.
    public func settings(for device: DeviceDescription) -> SensorSettings {
        var settings = SensorSettings()
        settings.pollIntervalMs = pollIntervalMs
        settings.bufferSilenceMs = bufferSilenceMs
        settings.gyroscope = gyroscope
        settings.mountMatrixOverride = sensorRules.first { $0.matches(device) && $0.mountMatrix != nil }?.mountMatrix
        return settings
    }

    /// Parses configuration text; `source` names it in errors.
    public static func parse(_ text: String, source: String = defaultPath) -> Result<Configuration, ConfigurationError> {
        var configuration = Configuration()
        enum Section: Equatable { case none, engine, sensor, device(Int) }
        var section = Section.none
        var seen: Set<String> = []
        var lineNumber = 0
        func fail(_ key: String?, _ message: String) -> Result<Configuration, ConfigurationError> {
            .failure(ConfigurationError(source: source, line: lineNumber, key: key, message: message))
        }
        // Lines end at LF, CR LF (one Character in Swift: splitting at "\n" alone would
        // keep a Windows-edited file as one line) or CR.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            // Binary data (a wrong file, a corrupted one) is named as such, never quoted:
            // quoting it would send raw control bytes to the administrator's terminal.
            if let bad = rawLine.unicodeScalars.first(where: Self.isNotText) {
                let what = bad == "\u{FFFD}" ? "bytes that are not UTF-8" : "the control character U+\(hex4(bad.value))"
                return fail(nil, "not a text file: the line holds \(what)")
            }
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count >= 3 else { return fail(nil, "malformed section header \"\(printable(line))\"") }
                let name = line.dropFirst().dropLast().trimmingWhitespace()
                let sectionName: String
                switch name {
                case "Engine":
                    section = .engine
                    sectionName = "Engine"
                case "Sensor":
                    section = .sensor
                    sectionName = "Sensor"
                default:
                    guard name.hasPrefix("Sensor "), case let pattern = name.dropFirst("Sensor ".count).trimmingWhitespace(), !pattern.isEmpty else {
                        return fail(nil, "unknown section [\(printable(name))] (expected [Engine], [Sensor] or [Sensor PATTERN])")
                    }
                    configuration.sensorRules.append(SensorRule(pattern: String(pattern), mountMatrix: nil, line: lineNumber))
                    section = .device(configuration.sensorRules.count - 1)
                    sectionName = "Sensor " + pattern
                }
                guard seen.insert("[" + sectionName + "]").inserted else { return fail(nil, "section [\(printable(sectionName))] appears twice") }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                return fail(nil, "expected Key=Value, found \"\(printable(line))\"")
            }
            let key = String(line[..<equals].trimmingWhitespace())
            let value = String(line[line.index(after: equals)...].trimmingWhitespace())
            guard !key.isEmpty else { return fail(nil, "missing key before '='") }
            let sectionKey: String
            switch section {
            case .none:
                return fail(key, "key outside any section")
            case .engine:
                sectionKey = "Engine." + key
                guard EngineTunables.keys.contains(key) else {
                    let hint = EngineTunables.nearestKey(to: key).map { "did you mean \($0)?" }
                        ?? "'orientationctl replay --help' lists the keys"
                    return fail(key, "unknown key in [Engine] (\(hint))")
                }
                do {
                    try configuration.tunables.set(key: key, value: value)
                } catch {
                    return fail(key, error.reason)
                }
            case .sensor:
                sectionKey = "Sensor." + key
                switch key {
                case "PollIntervalMs":
                    guard let number = SysfsNumber.parseInt(value), (10...10_000).contains(number) else {
                        return fail(key, "\"\(printable(value))\" is not a whole number of milliseconds in 10…10000")
                    }
                    configuration.pollIntervalMs = Int(number)
                case "BufferSilenceMs":
                    guard let number = SysfsNumber.parseInt(value), (100...60_000).contains(number) else {
                        return fail(key, "\"\(printable(value))\" is not a whole number of milliseconds in 100…60000")
                    }
                    configuration.bufferSilenceMs = Int(number)
                case "LaptopModeSuppression":
                    switch value.lowercased() {
                    case "true", "yes", "1": configuration.laptopModeSuppression = true
                    case "false", "no", "0": configuration.laptopModeSuppression = false
                    default: return fail(key, "\"\(printable(value))\" is not a boolean (true or false)")
                    }
                case "Gyroscope":
                    switch value.lowercased() {
                    case "auto": configuration.gyroscope = true
                    case "off": configuration.gyroscope = false
                    default: return fail(key, "\"\(printable(value))\" is neither auto nor off")
                    }
                default:
                    return fail(key, "unknown key in [Sensor] (known keys: PollIntervalMs, BufferSilenceMs, LaptopModeSuppression, Gyroscope)")
                }
            case .device(let index):
                sectionKey = "Sensor \(configuration.sensorRules[index].pattern)." + key
                switch key {
                case "MountMatrix":
                    guard let matrix = MountMatrix.parse(value) else {
                        return fail(key, "\"\(printable(value))\" is not a mount matrix (three rows of three numbers: \"1, 0, 0; 0, 1, 0; 0, 0, 1\")")
                    }
                    configuration.sensorRules[index].mountMatrix = matrix
                default:
                    return fail(key, "unknown key in a per-sensor section (known keys: MountMatrix)")
                }
            }
            guard seen.insert(sectionKey).inserted else { return fail(key, "given twice in the same section") }
        }
        return .success(configuration)
    }

    /// Whether a character read from the file shows it is not text: a control character
    /// other than tab and carriage return, or U+FFFD (what decoding made of bytes that
    /// are not UTF-8).
    static func isNotText(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0D: false
        case 0x00..<0x20, 0x7F..<0xA0, 0xFFFD: true
        default: false
        }
    }

    /// Reads and parses a file. A missing file is the defaults when `optional` (the
    /// default path), an error otherwise.
    public static func load(path: String, optional: Bool) -> Result<Configuration, ConfigurationError> {
        let text: String
        do {
            text = try FileSystem.readText(path, limit: 1 << 20)
        } catch {
            if optional, error == .noEntry { return .success(Configuration()) }
            return .failure(ConfigurationError(source: path, line: nil, key: nil, message: "cannot read: \(error)"))
        }
        return parse(text, source: path)
    }
}

/// Four hexadecimal digits, upper case (as U+ code points are written).
private func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// Why a configuration file was rejected: the file, line and key, and the problem.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var line: Int?
    public var key: String?
    public var message: String

    public var description: String {
        var text = source
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(printable(key)): " }
        return text + message
    }
}


