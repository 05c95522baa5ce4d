/// The backends that read real accelerometers, in order of preference (in the style of
/// iio-sensor-proxy's driver table): each says which devices it handles and opens them.
/// Closing is releasing the backend (stop, then drop the reference).
public struct SensorDriver: Sendable {
    public var kind: SensorKind
    /// Whether this driver can read `device` (from its classification).
    public var discover: @Sendable (DeviceDescription) -> Bool
    /// Opens the device; throws, with the reason, when it cannot be used.
    public var open: @Sendable (DeviceDescription, SensorEnvironment) throws(SensorError) -> SensorBackend

    public static let table: [SensorDriver] = [
        SensorDriver(kind: .iioBuffer, discover: { handles(.iioBuffer, $0) },
                     open: { device, environment throws(SensorError) in try IIOBufferSensor(device: device, environment: environment) }),
        SensorDriver(kind: .iioPoll, discover: { handles(.iioPoll, $0) },
                     open: { device, environment throws(SensorError) in try IIOPollSensor(device: device, environment: environment) }),
        SensorDriver(kind: .input, discover: { handles(.input, $0) },
                     open: { device, environment throws(SensorError) in try EvdevSensor(device: device, environment: environment) }),
    ]

    public static func driver(for kind: SensorKind) -> SensorDriver? { table.first { $0.kind == kind } }

    private static func handles(_ kind: SensorKind, _ device: DeviceDescription) -> Bool {
        if case .candidate(let kinds) = SensorClassifier.classify(device) { return kinds.contains(kind) }
        return false
    }
}
