import Glibc
import OrientationEngine
import Posix

/// An IIO accelerometer read by polling `in_accel_{x,y,z}_raw` on a timer while started.
public final class IIOPollSensor: SensorBackend {
    public let identity: SensorIdentity
    public let syspath: String
    public let matrix: MountMatrix
    public let calibration: IIOCalibration
    /// The value written to `sampling_frequency` at open (nil: none written).
    public private(set) var samplingFrequency: String?

    private let environment: SensorEnvironment
    private var timer: Posix.Timer?
    private var handler: ((Sample) -> Void)?
    /// The gyroscope on the same device, read at each tick (nil: none, or switched off).
    private var gyroscope: PolledGyroscope?
    private var gyroscopeHandler: ((GyroscopeSample) -> Void)?
    private var problems = ProblemLog()
    private var failure = FailureReport()
    /// `in_accel_{x,y,z}_raw`, open while started (see `read(at:)`).
    private let rawFiles: HeldAttributes
    /// The poll timer's next scheduled expiry (see `tick()`).
    private var nextTickMs: Int64 = 0
    /// The squared length of the last reading (a tick's or `currentSample`'s), for `tick`.
    private var lastLengthSquared: Double?

    /// Opens the device: reads scale, offsets and mount matrix, sets the sampling
    /// frequency. Throws (the device is skipped) when the calibration is unusable or
    /// the readings cannot be read at all.
    public init(device: DeviceDescription, environment: SensorEnvironment) throws(SensorError) {
        self.environment = environment
        syspath = device.syspath
        identity = SensorIdentity(device: device, backend: .iioPoll)
        let path = device.syspath
        rawFiles = HeldAttributes(directory: path, names: IIOCalibration.axes.map { "in_accel_\($0)_raw" },
                                  loop: environment.loop)
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
        gyroscope = environment.settings.gyroscope
            ? IIOGyroscope.find(accelerometer: path, name: device.displayName, accelerometerMatrix: matrix, logger: logger)
                .map(PolledGyroscope.init) : nil
        if SysfsFile.exists(path + "/sampling_frequency") {
            let value = SamplingFrequency.choose(available: attribute("sampling_frequency_available")
                ?? attribute("in_accel_sampling_frequency_available"),
                leastHz: SamplingFrequency.leastHz(pollIntervalMs: environment.settings.pollIntervalMs))
            if case .failure(let error) = SysfsFile.write(path + "/sampling_frequency", value) {
                logger.warning("\(device.displayName): cannot set sampling_frequency to \(value): \(error)")
            } else {
                samplingFrequency = value
            }
        }
        logger.debug("\(name): iio-poll, scale \(calibration.scale), offset \(calibration.offset), mount matrix \(matrix) (\(source)), sampling frequency \(samplingFrequency ?? "unchanged")")
    }

    deinit {
        timer?.disarm()
    }

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
        nextTickMs = MonotonicClock.milliseconds() + interval
        timer?.arm(afterMs: interval, intervalMs: interval)
    }

    public var gyroscopeName: String? { gyroscope?.name }

    public func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {
        guard gyroscope != nil else { return }
        gyroscopeHandler = handler
    }

    public func stopGyroscope() {
        gyroscopeHandler = nil
        gyroscope?.close()
    }

    public func stop() {
        timer?.disarm()
        handler = nil
        gyroscopeHandler = nil
        gyroscope?.close()
        lastLengthSquared = nil
        rawFiles.close()
    }

    public func currentSample() -> Sample? { read(at: MonotonicClock.milliseconds()) }

    /// Reads at `atMs` rather than at the next tick when that is sooner (by more than
    /// `earlyReadMarginMs`), and ticks on from there: the poll's phase moves, its rate
    /// does not. At most one extra reading per pending decision, each asked for by the
    /// engine (`OrientationEngine.readingWantedMs`).
    public func requestReading(atMs: Int64) {
        guard handler != nil, let timer else { return }
        let now = MonotonicClock.milliseconds()
        let at = max(atMs, now + 1)
        guard at + Self.earlyReadMarginMs < nextTickMs else { return }
        nextTickMs = at
        timer.arm(afterMs: at - now, intervalMs: Int64(max(environment.settings.pollIntervalMs, 1)))
    }

    /// Read at every tick, still or not: a tick with no reading (a failed read) is no
    /// news about the device.
    public var delivery: SensorDelivery { .stream }

    /// A reading wanted less than this before the next tick waits for the tick.
    static let earlyReadMarginMs: Int64 = 10

    /// A poll. Its sample is stamped with the tick's scheduled time, not the moment the
    /// loop got round to it: the timer does not drift, and the engine then sees the true
    /// poll interval instead of one jittered by wake-up latency and cut to whole
    /// milliseconds (99, 101, … ms), which could cost a settle time one extra poll.
    private func tick() {
        let interval = Int64(max(environment.settings.pollIntervalMs, 1))
        let now = MonotonicClock.milliseconds()
        // Ticks the loop was too late for (timerfd coalesces them) are skipped.
        let missed = max(0, (now - nextTickMs + interval / 2) / interval)
        let scheduled = nextTickMs + missed * interval
        nextTickMs = scheduled + interval
        let previous = lastLengthSquared
        guard let handler, var sample = read(at: min(scheduled, now)) else { return }
        // The three axes are three attributes, read one after the other: a reading taken
        // while they change can hold axes of two moments — a test rig rewriting the files
        // one by one, a driver that samples each axis on its own read. Such a reading is
        // rarely the length of a real one: when the length jumps against the last reading's,
        // the axes are read once more at once and the newer reading is the one passed on
        // (a real shock lasts milliseconds and reads the same; a torn reading does not,
        // and would otherwise hold the engine's decision as a shock would).
        if let previous, Self.lengthJumped(fromSquared: previous, toSquared: sample.lengthSquared),
           let again = read(at: min(scheduled, now)) {
            environment.logger.debug("\(name): the reading's length jumped; read again: \(sample) -> \(again)")
            sample = again
        }
        if let gyroscopeHandler, let rate = gyroscope?.read(at: sample.timeMs, sensor: name, logger: environment.logger) {
            gyroscopeHandler(rate)
        }
        handler(sample)
    }

    /// Whether a reading's length is more than a quarter away from the one before (both
    /// given squared): a reason to read the axes again (see `tick`).
    static func lengthJumped(fromSquared last: Double, toSquared current: Double) -> Bool {
        guard last > 0 else { return false }
        let ratio = (current / last).squareRoot()
        return ratio > 1.25 || ratio < 0.75
    }

    /// Reads the three axes now; nil (logged) when a reading is missing or malformed.
    ///
    /// The three attribute files stay open from the first read until `stop()`
    /// (``HeldAttributes``: one `pread` per axis, files that test rigs replace opened
    /// again), and a name that is gone is a vanished device. Nothing is allocated on the
    /// way of a well-formed reading.
    func read(at timeMs: Int64) -> Sample? {
        guard let x = readAxis(0), let y = readAxis(1), let z = readAxis(2) else { return nil }
        guard let (cx, cy, cz) = calibration.convert(x, y, z) else {
            problems.report("out of range", "\(name): reading \([x, y, z].map { SysfsNumber.format($0) }) is out of range: sample dropped", logger: environment.logger)
            return nil
        }
        problems.clear(name, logger: environment.logger)
        let oriented = matrix.apply(x: cx, y: cy, z: cz)
        let sample = Sample(timeMs: timeMs, x: oriented.x, y: oriented.y, z: oriented.z)
        lastLengthSquared = sample.lengthSquared
        return sample
    }

    private func readAxis(_ axis: Int) -> Double? {
        // A plain integer straight from the bytes; anything else as text, for the general
        // parser, which also names what is wrong.
        let read = rawFiles.read(axis) { bytes -> (value: Double?, text: String?) in
            if let value = Self.parseRawInteger(bytes) { return (value, nil) }
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.last, last == "\n" || last == "\0" { text.removeLast() }
            return (SysfsNumber.parseDouble(text), text)
        }
        var file: String { "in_accel_\(IIOCalibration.axes[axis])_raw" }
        switch read {
        case .failure(let error):
            if error == .noEntry || error == .noDevice {
                vanished("\(file): \(error)")
            } else {
                problems.report("cannot read", "\(name): cannot read \(file): \(error): sample dropped", logger: environment.logger)
            }
            return nil
        case .success(let (value?, _)):
            return value
        case .success(let (nil, text)):
            problems.report("not a number", "\(name): \(file) \"\(printable(text ?? ""))\" is not a number: sample dropped", logger: environment.logger)
            return nil
        }
    }

    /// A reading as sysfs prints it, an optional '-' and at most 15 digits followed by a
    /// newline, straight from the bytes; nil for anything else (left to `SysfsNumber`,
    /// which accepts exactly the same values for these and more forms besides).
    static func parseRawInteger(_ bytes: UnsafeRawBufferPointer) -> Double? {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == 0 { end -= 1 }
        var index = 0
        let negative = end > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < end, end - index <= 15 else { return nil }
        var value: Int64 = 0
        while index < end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            index += 1
        }
        return Double(negative ? -value : value)
    }

    private func vanished(_ why: String) {
        timer?.disarm()
        rawFiles.close()
        failure.report("\(name): device vanished (\(why))", reason: "device vanished", environment)
    }
}

extension BackendKind {
    public static let iioPoll = BackendKind(rawValue: "iio-poll")
}

extension IIOPollSensor {
    /// An IIO device whose three raw readings can be read one by one: polled. Also the
    /// fallback of a buffered device.
    public static let driver = SensorDriver(
        kind: .iioPoll, typeWord: "iio-poll-accel",
        probes: ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw"],
        accepts: { $0.subsystem == "iio" },
        isFallback: true,
        open: { device, environment throws(SensorError) in try IIOPollSensor(device: device, environment: environment) })
}
