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
    /// The kind of backend; its raw value is the manager's SensorBackend.
    var kind: BackendKind { get }
    /// Begins delivering samples to `handler` on the event loop.
    func start(handler: @escaping (Sample) -> Void) throws(SensorError)
    /// Stops delivering samples.
    func stop()
    /// The freshest sample available right now, read synchronously if the backend can
    /// (so that `Start` returns with current properties); nil when there is none yet.
    func currentSample() -> Sample?
}

/// How a backend reads its samples: the manager's SensorBackend property, by value.
public enum BackendKind: String, Sendable, CaseIterable {
    case iioBuffer = "iio-buffer"
    case iioPoll = "iio-poll"
    case input
    case simulated
    case replay
}

/// Why a sensor could not be opened or read, in words for the log.
public struct SensorError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
