import Glibc
import OrientationEngine
import Posix

/// Settings shared by the real backends.
public struct SensorSettings: Sendable, Equatable {
    /// Poll interval of the IIO polling backend.
    public var pollIntervalMs: Int = 100
    /// A buffer that delivers no frame this long after it was enabled falls back to
    /// polling.
    public var bufferSilenceMs: Int = 2000
    /// Mount matrix overrides from the configuration (matched by name or modalias).
    public var mountMatrixOverride: MountMatrix?

    public init() {}
}

/// What every real backend is given when it is opened.
public struct SensorEnvironment {
    public var loop: EventLoop
    public var logger: Logger
    public var settings: SensorSettings
    /// Called (on the loop, never re-entrantly) when the backend stops working: the
    /// device vanished, or a buffer turned out to be unusable.
    public var failed: (String) -> Void

    public init(loop: EventLoop, logger: Logger, settings: SensorSettings, failed: @escaping (String) -> Void) {
        self.loop = loop
        self.logger = logger
        self.settings = settings
        self.failed = failed
    }
}

/// Logs a recurring problem once until things are fine again, so a broken sensor read
/// ten times a second does not flood the journal.
struct ProblemLog {
    private var last: String?
    var count = 0

    mutating func report(_ message: String, logger: Logger) {
        count += 1
        if message != last { logger.warning(message) }
        last = message
    }

    mutating func clear() { last = nil }
}

/// An IIO accelerometer read by polling `in_accel_{x,y,z}_raw` on a timer while started.
public final class IIOPollSensor: SensorBackend {
    public let name: String
    public let kind = SensorKind.iioPoll.rawValue
    public let syspath: String
    public let matrix: MountMatrix
    public let calibration: IIOCalibration
    /// The value written to `sampling_frequency` at open (nil: none written).
    public private(set) var samplingFrequency: String?

    private let environment: SensorEnvironment
    private var timer: Posix.Timer?
    private var handler: ((Sample) -> Void)?
    private var problems = ProblemLog()
    private var reportedFailure = false

    /// Opens the device: reads scale, offsets and mount matrix, sets the sampling
    /// frequency. Throws (the device is skipped) when the calibration is unusable or
    /// the readings cannot be read at all.
    public init(device: DeviceDescription, environment: SensorEnvironment) throws(SensorError) {
        self.environment = environment
        syspath = device.syspath
        name = device.displayName
        let path = device.syspath
        let attribute: (String) -> String? = { SysfsFile.read(path + "/" + $0) }
        switch IIOCalibration.read(attribute) {
        case .success(let value): calibration = value
        case .failure(let error): throw SensorError("\(device.displayName): \(error.message)")
        }
        for axis in IIOCalibration.axes where !SysfsFile.exists(path + "/in_accel_\(axis)_raw") {
            throw SensorError("\(device.displayName): in_accel_\(axis)_raw is missing")
        }
        let logger = environment.logger
        let (matrix, source) = MountMatrix.resolve(
            override: environment.settings.mountMatrixOverride, property: device.properties["ACCEL_MOUNT_MATRIX"],
            attribute: attribute, device: device.displayName, warn: { logger.warning($0) })
        self.matrix = matrix
        if SysfsFile.exists(path + "/sampling_frequency") {
            let value = SamplingFrequency.choose(available: attribute("sampling_frequency_available")
                ?? attribute("in_accel_sampling_frequency_available"))
            if case .failure(let error) = SysfsFile.write(path + "/sampling_frequency", value) {
                logger.warning("\(device.displayName): cannot set sampling_frequency to \(value): \(error)")
            } else {
                samplingFrequency = value
            }
        }
        logger.debug("\(name): iio-poll, scale \(calibration.scale), offset \(calibration.offset), mount matrix \(matrix) (\(source)), sampling frequency \(samplingFrequency ?? "unchanged")")
    }

    deinit { timer?.disarm() }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        self.handler = handler
        if timer == nil {
            do {
                timer = try Posix.Timer(loop: environment.loop) { [weak self] in self?.tick() }
            } catch {
                throw SensorError("cannot create the poll timer: \(error)")
            }
        }
        let interval = Int64(max(environment.settings.pollIntervalMs, 1))
        timer?.arm(afterMs: interval, intervalMs: interval)
    }

    public func stop() {
        timer?.disarm()
        handler = nil
    }

    public func currentSample() -> Sample? { read() }

    private func tick() {
        guard let handler, let sample = read() else { return }
        handler(sample)
    }

    /// Reads the three axes now; nil (logged) when a reading is missing or malformed.
    func read() -> Sample? {
        var raw: [Double] = []
        for axis in IIOCalibration.axes {
            let file = syspath + "/in_accel_\(axis)_raw"
            switch SysfsFile.readResult(file) {
            case .success(let text):
                guard let value = SysfsNumber.parseDouble(text) else {
                    problems.report("\(name): in_accel_\(axis)_raw \"\(printable(text))\" is not a number: sample dropped", logger: environment.logger)
                    return nil
                }
                raw.append(value)
            case .failure(let error):
                if error == .noEntry || error == .noDevice {
                    vanished("in_accel_\(axis)_raw: \(error)")
                } else {
                    problems.report("\(name): cannot read in_accel_\(axis)_raw: \(error): sample dropped", logger: environment.logger)
                }
                return nil
            }
        }
        guard let (x, y, z) = calibration.convert(raw) else {
            problems.report("\(name): reading \(raw.map { SysfsNumber.format($0) }) is out of range: sample dropped", logger: environment.logger)
            return nil
        }
        problems.clear()
        let oriented = matrix.apply(x: x, y: y, z: z)
        return Sample(timeMs: MonotonicClock.milliseconds(), x: oriented.x, y: oriented.y, z: oriented.z)
    }

    private func vanished(_ why: String) {
        timer?.disarm()
        guard !reportedFailure else { return }
        reportedFailure = true
        environment.logger.warning("\(name): device vanished (\(why))")
        let failed = environment.failed
        environment.loop.post { failed("device vanished") }
    }
}
