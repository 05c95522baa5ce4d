/// The backends that read real accelerometers, in order of preference (in the style of
/// iio-sensor-proxy's `drivers.h`). Each backend file declares its own driver (`static
/// let driver`): which devices it can read and how to open them. Adding a backend is one
/// new file and one line here. Closing is releasing the backend (stop, then drop it).
public struct SensorDriver: Sendable {
    public var kind: SensorKind
    /// The word of `ORIENTATIOND_TYPE` / `IIO_SENSOR_PROXY_TYPE` that names this driver.
    public var typeWord: String
    /// The attributes `detects` looks at (read at discovery).
    public var probes: [String]
    /// Whether the driver can work with the device at all (subsystem, device node),
    /// whatever udev says.
    public var accepts: @Sendable (DeviceDescription) -> Bool
    /// Whether the device looks like one this driver reads, without udev's word.
    public var detects: @Sendable (DeviceDescription) -> Bool
    /// Offered as well when udev named another driver for the device and this one can
    /// read it (polling behind a buffer).
    public var isFallback = false
    /// Opens the device; throws, with the reason, when it cannot be used.
    public var open: @Sendable (DeviceDescription, SensorEnvironment) throws(SensorError) -> SensorBackend

    /// `detects` nil: the device has every one of `probes` (the attributes are the test,
    /// so the list read at discovery and the test cannot drift apart).
    public init(kind: SensorKind, typeWord: String, probes: [String],
                accepts: @escaping @Sendable (DeviceDescription) -> Bool,
                detects: (@Sendable (DeviceDescription) -> Bool)? = nil, isFallback: Bool = false,
                open: @escaping @Sendable (DeviceDescription, SensorEnvironment) throws(SensorError) -> SensorBackend) {
        self.kind = kind
        self.typeWord = typeWord
        self.probes = probes
        self.accepts = accepts
        self.detects = detects ?? { device in probes.allSatisfy { device.attributes[$0] != nil } }
        self.isFallback = isFallback
        self.open = open
    }

    /// In order of preference.
    public static let table: [SensorDriver] = [
        IIOBufferSensor.driver,
        IIOPollSensor.driver,
        EvdevSensor.driver,
    ]

    public static func driver(for kind: SensorKind) -> SensorDriver? { table.first { $0.kind == kind } }
}
