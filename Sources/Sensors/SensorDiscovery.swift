import Glibc
import Posix
import Udev

/// What discovery knows about a device, independent of libudev (so that the
/// classification is a pure function and testable without devices).
public struct DeviceDescription: Sendable, Equatable {
    public var syspath: String
    public var sysname: String
    public var subsystem: String
    public var devnode: String?
    public var properties: [String: String]
    /// Attribute names that exist (relative to the syspath), of those discovery asks
    /// about, with their contents for small ones (name, label, ...).
    public var attributes: [String: String]
    /// Attributes of the parent input device (`properties`, `name`) for evdev nodes.
    public var parentAttributes: [String: String]

    public init(syspath: String, sysname: String, subsystem: String, devnode: String?,
                properties: [String: String], attributes: [String: String], parentAttributes: [String: String] = [:]) {
        self.syspath = syspath
        self.sysname = sysname
        self.subsystem = subsystem
        self.devnode = devnode
        self.properties = properties
        self.attributes = attributes
        self.parentAttributes = parentAttributes
    }

    /// The human-readable name: the IIO `name` attribute or the input device's name,
    /// with the kernel name ("accel_3d (iio:device0)").
    public var displayName: String {
        let base = attributes["name"] ?? parentAttributes["name"] ?? properties["NAME"].map { $0.trimmingQuotes() }
        guard let base, !base.isEmpty else { return sysname }
        return "\(printable(base, limit: 64)) (\(sysname))"
    }

    /// The short name configuration sections match ("accel_3d").
    public var shortName: String {
        attributes["name"] ?? parentAttributes["name"] ?? properties["NAME"].map { $0.trimmingQuotes() } ?? sysname
    }

    public var modalias: String? { properties["MODALIAS"] ?? attributes["modalias"] }
}

extension String {
    func trimmingQuotes() -> String {
        var text = Substring(self)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return String(text)
    }
}

/// The outcome of classifying one device.
public enum Classification: Sendable, Equatable {
    /// A display accelerometer usable by these kinds, best first.
    case candidate([SensorKind])
    /// An accelerometer deliberately not used (why, for the log).
    case skipped(String)
    /// Not an accelerometer.
    case none
}

/// Decides which devices are display accelerometers and how they can be read, by
/// asking each driver of `SensorDriver.table`.
public enum SensorClassifier {
    /// The attributes and parent attributes discovery reads: what the drivers look at,
    /// and what every device is described by.
    public static var probedAttributes: [String] {
        var names = ["name", "label", "modalias"]
        for driver in SensorDriver.table { names += driver.probes.filter { !names.contains($0) } }
        return names
    }

    public static func classify(_ device: DeviceDescription) -> Classification {
        var kinds: Set<SensorKind> = []
        let typed = ["ORIENTATIOND_TYPE", "IIO_SENSOR_PROXY_TYPE"].compactMap { device.properties[$0] }
        let drivers = SensorDriver.table.filter { $0.accepts(device) }
        if !typed.isEmpty {
            // udev's word (ours, or iio-sensor-proxy's) decides; a driver marked as a
            // fallback joins when it can read the device too (a buffered device whose
            // readings can also be read one by one falls back to polling).
            for text in typed {
                for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }) {
                    if let driver = drivers.first(where: { $0.typeWord == word }) { kinds.insert(driver.kind) }
                }
            }
            if !kinds.isEmpty {
                for driver in drivers where driver.isFallback && driver.detects(device) { kinds.insert(driver.kind) }
            }
        } else {
            for driver in drivers where driver.detects(device) { kinds.insert(driver.kind) }
        }
        guard !kinds.isEmpty else { return .none }
        if device.properties["ACCEL_LOCATION"] == "base" { return .skipped("located in the base (ACCEL_LOCATION=base)") }
        if device.attributes["label"] == "accel-base" { return .skipped("located in the base (label accel-base)") }
        return .candidate(kinds.sorted())
    }
}

/// A device chosen for a sensor kind.
public struct SensorCandidate: Sendable, Equatable {
    public var device: DeviceDescription
    public var kind: SensorKind
    public init(device: DeviceDescription, kind: SensorKind) {
        self.device = device
        self.kind = kind
    }
    /// Identity of the choice: same device, same kind.
    public var key: String { device.syspath + "#" + kind.rawValue }
}

/// Builds device descriptions from libudev.
public enum UdevDiscovery {
    public static let subsystems = ["iio", "input"]

    public static func describe(_ device: UdevDevice) -> DeviceDescription {
        let syspath = device.syspath
        var attributes: [String: String] = [:]
        for name in SensorClassifier.probedAttributes {
            if let text = SysfsFile.read(syspath + "/" + name) { attributes[name] = text }
        }
        var parentAttributes: [String: String] = [:]
        if device.subsystem == "input", let parent = device.parent, parent.subsystem == "input" {
            for name in ["name", "properties"] {
                if let text = SysfsFile.read(parent.syspath + "/" + name) { parentAttributes[name] = text }
            }
        }
        return DeviceDescription(syspath: syspath, sysname: device.sysname, subsystem: device.subsystem ?? "",
                                 devnode: device.devnode, properties: device.properties, attributes: attributes,
                                 parentAttributes: parentAttributes)
    }

    /// Every usable candidate now present, best first; each skipped device is passed to
    /// `skipped` with the reason.
    public static func candidates(context: UdevContext, skipped: (DeviceDescription, String) -> Void) -> [SensorCandidate] {
        var result: [SensorCandidate] = []
        for subsystem in subsystems {
            for device in context.devices(subsystem: subsystem) {
                let description = describe(device)
                switch SensorClassifier.classify(description) {
                case .candidate(let kinds):
                    result += kinds.map { SensorCandidate(device: description, kind: $0) }
                case .skipped(let reason):
                    skipped(description, reason)
                case .none:
                    break
                }
            }
        }
        return rank(result)
    }

    /// Orders candidates by kind preference, then by syspath (stable, deterministic).
    public static func rank(_ candidates: [SensorCandidate]) -> [SensorCandidate] {
        candidates.sorted { a, b in
            a.kind != b.kind ? a.kind < b.kind : a.device.syspath < b.device.syspath
        }
    }
}
