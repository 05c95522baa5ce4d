import OrientationEngine

/// A source of accelerometer samples, already in the engine's frame (IIO frame, m/s²,
/// after scale and mount matrix).
///
/// The service claims a backend with `start` when the first client starts and releases
/// it with `stop` when the last one stops. A stopped backend must cost nothing: no
/// timers, no reads, buffers disabled.
public protocol SensorBackend: AnyObject {
    /// Human-readable name (the manager's SensorName).
    var name: String { get }
    /// The kind of backend (the manager's SensorBackend): "iio-buffer", "iio-poll",
    /// "input", "simulated" or "replay".
    var kind: String { get }
    /// Begins delivering samples to `handler` on the event loop.
    func start(handler: @escaping (Sample) -> Void) throws(SensorError)
    /// Stops delivering samples.
    func stop()
    /// The freshest sample available right now, read synchronously if the backend can
    /// (so that `Start` returns with current properties); nil when there is none yet.
    func currentSample() -> Sample?
}

/// Why a sensor could not be opened or read, in words for the log.
public struct SensorError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
