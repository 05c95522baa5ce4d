import OrientationEngine

/// A source of accelerometer samples, already in the engine's frame (IIO frame, m/s²,
/// after scale and mount matrix).
///
/// The service claims a backend with `start` when the first client starts and releases
/// it with `stop` when the last one stops. A stopped backend must cost nothing: no
/// timers, no reads, buffers disabled.
public protocol SensorBackend: AnyObject {
    /// Who the backend is, set once when it is opened: what the manager's SensorName,
    /// SensorBackend and SensorDevice say.
    var identity: SensorIdentity { get }
    /// Begins delivering samples to `handler` on the event loop.
    func start(handler: @escaping (Sample) -> Void) throws(SensorError)
    /// Stops delivering samples.
    func stop()
    /// The freshest sample available right now, read synchronously if the backend can
    /// (so that `Start` returns with current properties); nil when there is none yet.
    func currentSample() -> Sample?
    /// The engine would decide sooner with a reading at `atMs` (monotonic clock) than at
    /// the backend's next one: a backend that polls reads then instead; one that is
    /// driven by the device ignores it (its device sends when something changes).
    func requestReading(atMs: Int64)
    /// Whether the backend sends only what changes (its silence: the device lies still)
    /// or a stream (its gap: a dropout that tells nothing): what the engine makes of a
    /// silence.
    var delivery: SensorDelivery { get }
    /// The human-readable name of the gyroscope read with this accelerometer (the same
    /// IMU), nil when there is none, it is switched off (`[Sensor] Gyroscope = off`) or
    /// it went away. Unlike the identity it can change while the backend is open.
    var gyroscopeName: String? { get }
    /// While started, also deliver the gyroscope's readings (on the samples' clock, each
    /// before the accelerometer reading taken with it) to `handler`; nothing when there
    /// is no gyroscope. Called after `start`; `stop` ends both.
    func startGyroscope(handler: @escaping (GyroscopeSample) -> Void)
    /// Stops reading the gyroscope (the engine gave it up: stuck, disagreeing with the
    /// accelerometer), so that a gyroscope nothing fuses costs nothing; the accelerometer
    /// goes on. Until `startGyroscope` is called again, which the service does only for
    /// a sensor it opened afresh. Nothing when there is no gyroscope.
    func stopGyroscope()
}

// Every requirement above is implemented by each backend itself, on purpose: a default
// here would let a new backend (or a wrapper) answer for a device it does not know.

extension SensorBackend {
    /// Human-readable name (the manager's SensorName).
    public var name: String { identity.name }
    /// The kind of backend; its raw value is the manager's SensorBackend.
    public var kind: BackendKind { identity.backend }
}

/// Who a sensor backend is: set once, when it is opened, from its device description
/// (`init(device:backend:)`), or by the backends that have no device.
public struct SensorIdentity: Equatable, Sendable {
    /// Human-readable name (the manager's SensorName).
    public var name: String
    /// How it is read (the manager's SensorBackend).
    public var backend: BackendKind
    /// The udev device's kernel name, iio:device0 or event3 (the manager's
    /// SensorDevice); "" for the backends without a device (simulated, replay).
    public var device: String

    public init(name: String, backend: BackendKind, device: String) {
        self.name = name
        self.backend = backend
        self.device = device
    }

    /// A device's identity as `backend` reads it.
    public init(device: DeviceDescription, backend: BackendKind) {
        self.init(name: device.displayName, backend: backend, device: device.sysname)
    }
}

/// How a backend reads its samples; the raw value is the manager's SensorBackend
/// property. Each backend file declares its own kind (`extension BackendKind`), so that
/// a new backend is one new file and one line of `SensorDriver.table`.
public struct BackendKind: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// Preference: the order of the driver table; kinds outside it (simulated, replay)
    /// last.
    var rank: Int { SensorDriver.table.firstIndex { $0.kind == self } ?? Int.max }
    public static func < (a: BackendKind, b: BackendKind) -> Bool {
        a.rank != b.rank ? a.rank < b.rank : a.rawValue < b.rawValue
    }
}

/// The kinds a real accelerometer is discovered as (those of the driver table).
public typealias SensorKind = BackendKind

/// Why a sensor could not be opened or read, in words for the log.
public struct SensorError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
