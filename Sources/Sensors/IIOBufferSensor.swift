import Glibc
import OrientationEngine
import Posix

/// An IIO accelerometer read through its buffer: `/dev/iio:deviceN` delivers frames of
/// the enabled scan elements, event-driven on the loop. The buffer is enabled only
/// while started.
public final class IIOBufferSensor: SensorBackend {
    public let identity: SensorIdentity
    public let syspath: String
    public let devnode: String
    public let layout: IIOFrameLayout
    public let matrix: MountMatrix
    public let calibration: IIOCalibration

    private let environment: SensorEnvironment
    private let hasRawAttributes: Bool
    /// The buffer's character device; its chunks hold whole frames when they can.
    private lazy var node = DeviceNode(path: devnode, loop: environment.loop, chunkSize: layout.frameBytes * 32)
    private var handler: ((Sample) -> Void)?
    private var latest: Sample?
    private var silenceTimer: Posix.Timer?
    private var problems = ProblemLog()
    private var failure = FailureReport()
    private var usableSinceStart = false
    private var clock: FrameClock
    /// The device's own gyroscope, its anglvel channels in the scan: calibration and
    /// mount matrix.
    private let scanGyroscope: (calibration: IIOCalibration, matrix: MountMatrix)?
    /// Else a HID sensor hub sibling's gyroscope, read at each batch of frames.
    private var gyroscope: PolledGyroscope?
    private var gyroscopeHandler: ((GyroscopeSample) -> Void)?
    private var warnedTimestamps = false

    static let axisChannels = ["in_accel_x", "in_accel_y", "in_accel_z"]
    static let anglvelChannels = ["in_anglvel_x", "in_anglvel_y", "in_anglvel_z"]
    static let timestampChannel = "in_timestamp"
    static let bufferLength = "16"

    /// Sets the buffer up (channels, trigger, length; left disabled). Throws with the
    /// reason when the device cannot be read this way; discovery then polls it.
    public init(device: DeviceDescription, environment: SensorEnvironment) throws(SensorError) {
        self.environment = environment
        syspath = device.syspath
        identity = SensorIdentity(device: device, backend: .iioBuffer)
        let path = device.syspath
        let label = device.displayName
        let logger = environment.logger
        let attribute: (String) -> String? = { SysfsFile.read(path + "/" + $0) }
        guard let devnode = device.devnode else { throw SensorError("\(label): no device node for the buffer") }
        self.devnode = devnode
        switch IIOCalibration.read(attribute) {
        case .success(let value): calibration = value
        case .failure(let error): throw SensorError("\(label): \(error.message)")
        }
        guard SysfsFile.exists(path + "/buffer/enable") else { throw SensorError("\(label): no buffer/enable attribute") }
        // Disabled while configuring (a previous user may have left it on).
        _ = SysfsFile.write(path + "/buffer/enable", "0")

        // Channels: x, y, z required, the timestamp if it parses, everything else off.
        let scan = path + "/scan_elements"
        var channels: [IIOChannel] = []
        for channel in Self.axisChannels {
            guard let indexText = attribute("scan_elements/\(channel)_index") else {
                throw SensorError("\(label): scan_elements/\(channel)_index is missing")
            }
            guard let index = SysfsNumber.parseInt(indexText), index >= 0, index < 4096 else {
                throw SensorError("\(label): scan_elements/\(channel)_index \"\(printable(indexText))\" is not an index")
            }
            guard let typeText = attribute("scan_elements/\(channel)_type") else {
                throw SensorError("\(label): scan_elements/\(channel)_type is missing")
            }
            guard let type = IIOScanType.parse(typeText) else {
                throw SensorError("\(label): scan_elements/\(channel)_type \"\(printable(typeText))\" is not a scan type")
            }
            channels.append(IIOChannel(name: channel, index: Int(index), type: type))
        }
        guard Set(channels.map(\.index)).count == channels.count else {
            throw SensorError("\(label): two accelerometer channels share a scan index")
        }
        // The device's own gyroscope in the same scan (a combined IMU): its raw
        // attributes cannot be read while the buffer is enabled.
        var anglvel: IIOCalibration?
        if environment.settings.gyroscope, Self.anglvelChannels.allSatisfy({ attribute("scan_elements/\($0)_index") != nil }) {
            var extra: [IIOChannel] = []
            for channel in Self.anglvelChannels {
                guard let index = attribute("scan_elements/\(channel)_index").flatMap({ SysfsNumber.parseInt($0) }),
                      index >= 0, index < 4096, !(channels + extra).contains(where: { $0.index == Int(index) }),
                      let type = attribute("scan_elements/\(channel)_type").flatMap({ IIOScanType.parse($0) }) else {
                    logger.warning("\(label): gyroscope not used: scan_elements/\(channel)_index or _type unusable")
                    extra = []
                    break
                }
                extra.append(IIOChannel(name: channel, index: Int(index), type: type))
            }
            if !extra.isEmpty {
                switch IIOCalibration.read(attribute, channel: "anglvel") {
                case .success(let value):
                    anglvel = value
                    channels += extra
                case .failure(let error):
                    logger.warning("\(label): gyroscope not used: \(error.message)")
                }
            }
        }
        var useTimestamp = false
        if let indexText = attribute("scan_elements/\(Self.timestampChannel)_index"),
           let typeText = attribute("scan_elements/\(Self.timestampChannel)_type") {
            if let index = SysfsNumber.parseInt(indexText), index >= 0, index < 4096,
               let type = IIOScanType.parse(typeText), !channels.contains(where: { $0.index == Int(index) }) {
                channels.append(IIOChannel(name: Self.timestampChannel, index: Int(index), type: type))
                useTimestamp = true
            } else {
                logger.warning("\(label): unusable timestamp channel (index \"\(printable(indexText))\", type \"\(printable(typeText))\"): left disabled")
            }
        }
        let wanted = Set(Self.axisChannels + (useTimestamp ? [Self.timestampChannel] : [])
                         + (anglvel != nil ? Self.anglvelChannels : []))
        for entry in SysfsFile.list(scan) where entry.hasSuffix("_en") {
            let channel = String(entry.dropLast(3))
            let value = wanted.contains(channel) ? "1" : "0"
            if case .failure(let error) = SysfsFile.write(scan + "/" + entry, value), wanted.contains(channel) {
                throw SensorError("\(label): cannot enable scan_elements/\(entry): \(error)")
            }
        }
        for channel in wanted where !SysfsFile.exists(scan + "/\(channel)_en") {
            throw SensorError("\(label): scan_elements/\(channel)_en is missing")
        }
        guard let layout = IIOFrameLayout(channels: channels) else { throw SensorError("\(label): no channels") }
        self.layout = layout

        switch IIOTrigger.selectOwn(syspath: path, deviceName: device.attributes["name"], sysname: device.sysname) {
        case .failure(let problem): logger.warning("\(label): \(problem.message)")
        case .success(let note?): logger.debug("\(label): \(note)")
        case .success(nil): break
        }
        if SysfsFile.exists(path + "/buffer/length"), case .failure(let error) = SysfsFile.write(path + "/buffer/length", Self.bufferLength) {
            logger.debug("\(label): cannot set buffer/length: \(error)")
        }
        var periodMs: Double?
        if SysfsFile.exists(path + "/sampling_frequency") {
            let value = SamplingFrequency.choose(available: attribute("sampling_frequency_available")
                ?? attribute("in_accel_sampling_frequency_available"),
                leastHz: SamplingFrequency.leastHz(pollIntervalMs: environment.settings.pollIntervalMs))
            if case .success = SysfsFile.write(path + "/sampling_frequency", value),
               let hz = SysfsNumber.parseDouble(attribute("sampling_frequency") ?? value), hz > 0 {
                periodMs = 1000 / hz
            }
        }
        // Frame timestamps on the daemon's clock, where the kernel lets us choose it.
        var monotonic = false
        if useTimestamp, SysfsFile.exists(path + "/current_timestamp_clock") {
            _ = SysfsFile.write(path + "/current_timestamp_clock", "monotonic")
            monotonic = attribute("current_timestamp_clock")?.trimmingWhitespace() == "monotonic"
        }
        clock = FrameClock(periodMs: periodMs, timestampsAreMonotonic: monotonic)
        hasRawAttributes = IIOCalibration.axes.allSatisfy { SysfsFile.exists(path + "/in_accel_\($0)_raw") }
        let (matrix, source) = MountMatrix.resolve(
            override: environment.settings.mountMatrixOverride, property: device.properties["ACCEL_MOUNT_MATRIX"],
            attribute: attribute, device: label, warn: { logger.warning($0) })
        self.matrix = matrix
        if let anglvel {
            var gyroMatrix = matrix
            if let text = attribute("in_anglvel_mount_matrix") {
                if let parsed = MountMatrix.parse(text) { gyroMatrix = parsed } else {
                    logger.warning("\(label): in_anglvel_mount_matrix \"\(printable(text))\" is not a matrix: the accelerometer's is used")
                }
            }
            scanGyroscope = (anglvel, gyroMatrix)
            gyroscope = nil
        } else {
            scanGyroscope = nil
            gyroscope = environment.settings.gyroscope
                ? IIOGyroscope.find(accelerometer: path, name: label, accelerometerMatrix: matrix, ownDevice: false, logger: logger)
                    .map(PolledGyroscope.init) : nil
        }
        logger.debug("\(name): iio-buffer, \(layout.frameBytes)-byte frames, scale \(calibration.scale), offset \(calibration.offset), mount matrix \(matrix) (\(source))")
    }

    deinit {
        if node.isOpen { disable() }
    }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        self.handler = handler
        guard !node.isOpen else { return }
        usableSinceStart = false
        // A synchronous first reading for Start, from the raw attributes while the
        // buffer is still off.
        if hasRawAttributes { latest = readRaw() }
        if case .failure(let error) = SysfsFile.write(syspath + "/buffer/enable", "1") {
            brokenBuffer("cannot enable the buffer: \(error)")
            throw SensorError("\(name): cannot enable the buffer: \(error)")
        }
        do {
            try node.open(chunk: { [weak self] chunk in self?.frames(chunk) }, end: { [weak self] why in self?.vanished(why) })
        } catch {
            _ = SysfsFile.write(syspath + "/buffer/enable", "0")
            brokenBuffer("cannot read \(devnode): \(error)")
            throw SensorError("\(name): cannot read \(devnode): \(error)")
        }
        do {
            if silenceTimer == nil {
                silenceTimer = try Posix.Timer(loop: environment.loop) { [weak self] in self?.silent() }
            }
            silenceTimer?.arm(afterMs: Int64(max(environment.settings.bufferSilenceMs, 1)))
        } catch {
            environment.logger.debug("\(name): no silence timer: \(error)")
        }
    }

    /// Driven by the device: it sends when something changes, so a wish for an earlier
    /// reading has nothing to act on.
    public func requestReading(atMs: Int64) {}
    /// A data-ready or motion trigger may send nothing while nothing changes.
    public var delivery: SensorDelivery { .onChange }

    public func stop() {
        handler = nil
        gyroscopeHandler = nil
        gyroscope?.close()
        disable()
    }

    public var gyroscopeName: String? { scanGyroscope != nil ? name : gyroscope?.name }

    public func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {
        guard gyroscope != nil || scanGyroscope != nil else { return }
        gyroscopeHandler = handler
    }

    /// A gyroscope in the scan stays in it (its channels cost nothing more to read than
    /// to skip); a sibling's attributes are no longer read.
    public func stopGyroscope() {
        gyroscopeHandler = nil
        gyroscope?.close()
    }

    public func currentSample() -> Sample? { latest }

    private func disable() {
        silenceTimer?.disarm()
        node.close()
        _ = SysfsFile.write(syspath + "/buffer/enable", "0")
    }

    /// One chunk read from the buffer: whole frames, each stamped by the ``FrameClock``;
    /// a trailing partial frame is dropped.
    private func frames(_ chunk: ArraySlice<UInt8>) {
        let frameBytes = layout.frameBytes
        var frames: [ArraySlice<UInt8>] = []
        var offset = chunk.startIndex
        while offset + frameBytes <= chunk.endIndex {
            frames.append(chunk[offset..<offset + frameBytes])
            offset += frameBytes
        }
        let (stamps, believed) = clock.stamps(readAtMs: MonotonicClock.milliseconds(),
                                               timestampsNs: frames.map { layout.value(of: Self.timestampChannel, in: $0) })
        if !believed && !warnedTimestamps {
            warnedTimestamps = true
            environment.logger.warning("\(name): frame timestamps are not on the monotonic clock or not plausible: frames spread by the sampling period instead")
        }
        // The gyroscope, once a batch, just before its last frame.
        for (index, (bytes, stamp)) in zip(frames, stamps).enumerated() {
            if index == frames.count - 1, let gyroscopeHandler,
               let rate = gyroscope?.read(at: stamp, sensor: name, logger: environment.logger) {
                gyroscopeHandler(rate)
            }
            frame(bytes, at: stamp)
        }
        if offset < chunk.endIndex {
            problems.report("truncated frame", "\(name): truncated frame (\(chunk.endIndex - offset) of \(frameBytes) bytes): dropped", logger: environment.logger)
        }
    }

    private func frame(_ bytes: ArraySlice<UInt8>, at timeMs: Int64) {
        var raw: [Double] = []
        for channel in Self.axisChannels {
            guard let value = layout.value(of: channel, in: bytes) else { return }
            raw.append(Double(value))
        }
        guard let (x, y, z) = calibration.convert(raw) else {
            problems.report("out of range", "\(name): frame \(raw.map { SysfsNumber.format($0) }) is out of range: dropped", logger: environment.logger)
            return
        }
        problems.clear(name, logger: environment.logger)
        if !usableSinceStart {
            usableSinceStart = true
            silenceTimer?.disarm()
        }
        if let (gyroCalibration, gyroMatrix) = scanGyroscope, let gyroscopeHandler {
            let raw = Self.anglvelChannels.compactMap { layout.value(of: $0, in: bytes).map(Double.init) }
            if let (gx, gy, gz) = gyroCalibration.convert(raw) {
                let r = gyroMatrix.apply(x: gx, y: gy, z: gz)
                gyroscopeHandler(GyroscopeSample(timeMs: timeMs, x: r.x, y: r.y, z: r.z))
            }
        }
        let oriented = matrix.apply(x: x, y: y, z: z)
        let sample = Sample(timeMs: timeMs, x: oriented.x, y: oriented.y, z: oriented.z)
        latest = sample
        handler?(sample)
    }

    private func readRaw() -> Sample? {
        var raw: [Double] = []
        for axis in IIOCalibration.axes {
            guard let text = SysfsFile.read(syspath + "/in_accel_\(axis)_raw"), let value = SysfsNumber.parseDouble(text) else { return nil }
            raw.append(value)
        }
        guard let (x, y, z) = calibration.convert(raw) else { return nil }
        let oriented = matrix.apply(x: x, y: y, z: z)
        return Sample(timeMs: MonotonicClock.milliseconds(), x: oriented.x, y: oriented.y, z: oriented.z)
    }

    private func silent() {
        guard node.isOpen, !usableSinceStart else { return }
        brokenBuffer("no usable frame within \(environment.settings.bufferSilenceMs) ms of enabling the buffer")
    }

    private func brokenBuffer(_ why: String) {
        failure.report("\(name): \(why): falling back to polling", reason: "buffer unusable", environment)
    }

    private func vanished(_ why: String) {
        disable()
        failure.report("\(name): device vanished (\(why))", reason: "device vanished", environment)
    }
}

extension BackendKind {
    public static let iioBuffer = BackendKind(rawValue: "iio-buffer")
}

extension IIOBufferSensor {
    /// An IIO device with scan elements for the three axes: read through its buffer.
    public static let driver = SensorDriver(
        kind: .iioBuffer, typeWord: "iio-buffer-accel",
        probes: ["scan_elements/in_accel_x_en", "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en"],
        accepts: { $0.subsystem == "iio" },
        open: { device, environment throws(SensorError) in try IIOBufferSensor(device: device, environment: environment) })
}
