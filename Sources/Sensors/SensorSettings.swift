/// Settings shared by the real backends.
public struct SensorSettings: Sendable, Equatable {
    /// Poll interval of the IIO polling backend.
    public var pollIntervalMs: Int = 100
    /// A buffer that delivers no frame this long after it was enabled falls back to
    /// polling.
    public var bufferSilenceMs: Int = 2000
    /// Mount matrix overrides from the configuration (matched by name or modalias).
    public var mountMatrixOverride: MountMatrix?
    /// Whether a gyroscope found with the accelerometer is read (`[Sensor] Gyroscope`).
    public var gyroscope = true

    public init() {}
}
