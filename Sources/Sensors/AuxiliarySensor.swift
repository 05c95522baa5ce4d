import Posix

/// The sensors iio-sensor-proxy serves beside the accelerometer, which orientationd reads
/// only for its net.hadess.SensorProxy facade: ambient light, proximity and the compass.
public enum AuxiliaryKind: String, CaseIterable, Sendable {
    case light = "ambient light"
    case proximity = "proximity"
    case compass = "compass"
}

/// The unit of a light level, as iio-sensor-proxy's LightLevelUnit says it: IIO light
/// channels are taken as lux (as Windows-compatible HID sensors report them), the
/// hwmon light sensors as a vendor percentage.
public enum LightUnit: String, Sendable {
    case lux
    case vendor
}

/// One reading of an auxiliary sensor.
public enum AuxiliaryReading: Equatable, Sendable {
    case light(Double, LightUnit)
    case proximity(near: Bool)
    /// Degrees from magnetic north, tilt-compensated.
    case heading(Double)
}

/// An auxiliary sensor opened from its device. It costs nothing until started (no
/// timers, no reads, buffers disabled) and is started only while someone claims it.
public protocol AuxiliarySensor: AnyObject {
    var kind: AuxiliaryKind { get }
    /// Who it is: name, driver, udev kernel name.
    var identity: SensorIdentity { get }
    var syspath: String { get }
    /// Begins reading. `reading` gets every reading on the event loop — the first one
    /// before `start` returns where the device can be read at once, so that a claim
    /// returns with a current value; `problem` gets a reading that is not one (garbage,
    /// out of range), which the caller logs once and ignores; `vanished` the device's
    /// end (its node closed under it).
    func start(reading: @escaping (AuxiliaryReading) -> Void, problem: @escaping (SensorError) -> Void,
               vanished: @escaping (String) -> Void) throws(SensorError)
    func stop()
}

/// What the auxiliary drivers know of a udev device.
public struct AuxiliaryDevice: Sendable {
    public var syspath: String
    public var sysname: String
    public var subsystem: String
    public var devnode: String?
    public var properties: [String: String]
    /// The parent's syspath (the input device above an event node).
    public var parentSyspath: String?

    public init(syspath: String, sysname: String, subsystem: String, devnode: String?, properties: [String: String],
                parentSyspath: String? = nil) {
        self.syspath = syspath
        self.sysname = sysname
        self.subsystem = subsystem
        self.devnode = devnode
        self.properties = properties
        self.parentSyspath = parentSyspath
    }

    public func attribute(_ name: String) -> String? { SysfsFile.read(syspath + "/" + name) }
    public func has(_ name: String) -> Bool { SysfsFile.exists(syspath + "/" + name) }

    /// "als (iio:device1)": the device's `name` attribute (the input device's for an
    /// event node, udev's NAME otherwise) and its kernel name.
    public var identityName: String {
        let base = attribute("name") ?? parentSyspath.flatMap { SysfsFile.read($0 + "/name") }
            ?? properties["NAME"].map { $0.trimmingQuotes() }
        guard let base, !base.isEmpty else { return sysname }
        return "\(printable(base, limit: 64)) (\(sysname))"
    }

    func identity(_ backend: BackendKind) -> SensorIdentity {
        SensorIdentity(name: identityName, backend: backend, device: sysname)
    }
}

/// A way to read one kind of auxiliary sensor, in the style of `SensorDriver`.
public struct AuxiliaryDriver: Sendable {
    public var kind: AuxiliaryKind
    public var backend: BackendKind
    public var subsystem: String
    /// nil: not a device of this driver; a failure: one, but unusable (the reason is
    /// logged once, and the sensor is absent).
    public var open: @Sendable (AuxiliaryDevice, EventLoop) -> Result<AuxiliarySensor, SensorError>?

    /// In order of preference within each kind, as iio-sensor-proxy orders its drivers.
    public static let table: [AuxiliaryDriver] = [
        IIOLightSensor.driver,
        IIOBufferChannelSensor.lightDriver,
        HwmonLightSensor.driver,
        HwmonLightSensor.platformDriver,
        IIOProximitySensor.driver,
        EvdevProximitySensor.driver,
        IIOBufferChannelSensor.compassDriver,
        IIOCompassSensor.driver,
    ]

    /// The subsystems the table's devices live in.
    public static var subsystems: [String] {
        var seen: [String] = []
        for driver in table where !seen.contains(driver.subsystem) { seen.append(driver.subsystem) }
        return seen
    }
}
