import CLinux
import Glibc
import OrientationEngine
import Posix

/// Decoding of evdev accelerometer events into frames: ABS_X/Y/Z values accumulate,
/// SYN_REPORT completes a frame. Pure, so it is testable without devices.
public struct EvdevFrameAssembler: Sendable {
    public static let evSyn: UInt16 = 0, evAbs: UInt16 = 3
    public static let synReport: UInt16 = 0, synDropped: UInt16 = 3
    public static let absX: UInt16 = 0, absY: UInt16 = 1, absZ: UInt16 = 2
    /// The size of `struct input_event` on this machine (24 on 64-bit Linux).
    public static let eventSize = MemoryLayout<input_event>.size

    public var axes: [Int32]
    /// After SYN_DROPPED, events up to the next SYN_REPORT are discarded.
    public var dropping = false

    public init(axes: [Int32] = [0, 0, 0]) { self.axes = axes }

    public enum Output: Equatable, Sendable {
        case frame([Int32])
        case dropped
    }

    /// Feeds one event; returns a complete frame at SYN_REPORT.
    public mutating func feed(type: UInt16, code: UInt16, value: Int32) -> Output? {
        switch (type, code) {
        case (Self.evSyn, Self.synDropped):
            dropping = true
            return .dropped
        case (Self.evSyn, Self.synReport):
            if dropping {
                dropping = false
                return nil
            }
            return .frame(axes)
        case (Self.evAbs, Self.absX...Self.absZ):
            if !dropping { axes[Int(code)] = value }
            return nil
        default:
            return nil
        }
    }

    /// One `struct input_event`: its type, code and value, and its time (the clock the
    /// reader chose with EVIOCSCLOCKID; CLOCK_REALTIME unless it chose) in nanoseconds.
    public struct Event: Equatable, Sendable {
        public var type: UInt16
        public var code: UInt16
        public var value: Int32
        public var timeNs: Int64

        public init(type: UInt16, code: UInt16, value: Int32, timeNs: Int64 = 0) {
            self.type = type
            self.code = code
            self.value = value
            self.timeNs = timeNs
        }
    }

    /// Splits raw bytes read from an evdev node into events; the count of trailing bytes
    /// that do not make a whole event comes back too. (The layout is the machine's own:
    /// a timeval of two longs, then type, code and value, little-endian.)
    public static func events(in bytes: some RandomAccessCollection<UInt8>) -> (events: [Event], leftover: Int) {
        let array = Array(bytes)
        let size = eventSize
        let half = (size - 8) / 2
        /// The signed little-endian integer of `count` bytes at `start`.
        func integer(_ start: Int, _ count: Int) -> Int64 {
            var raw: UInt64 = 0
            for k in 0..<count { raw |= UInt64(array[start + k]) << (8 * UInt64(k)) }
            let unused = UInt64(64 - 8 * count)
            return Int64(bitPattern: raw << unused) >> Int64(unused)
        }
        var events: [Event] = []
        var offset = 0
        while offset + size <= array.count {
            let base = offset + size - 8
            let seconds = integer(offset, half), microseconds = integer(offset + half, half)
            let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            events.append(Event(type: UInt16(integer(base, 2) & 0xffff), code: UInt16(integer(base + 2, 2) & 0xffff),
                                value: Int32(truncatingIfNeeded: integer(base + 4, 4)),
                                timeNs: overflow ? 0 : product &+ microseconds &* 1000))
            offset += size
        }
        return (events, array.count - offset)
    }
}

/// An evdev accelerometer (`/dev/input/eventN` with INPUT_PROP_ACCELEROMETER): axis
/// resolution from EVIOCGABS (units per g), frames from EV_ABS … SYN_REPORT, read
/// event-driven while started.
public final class EvdevSensor: SensorBackend {
    public let identity: SensorIdentity
    public let devnode: String
    public let matrix: MountMatrix
    /// m/s² per unit, per axis.
    public let scale: [Double]

    /// When the device reports no resolution, readings are taken as milli-g (the unit
    /// of the lis3lv02d family and most input accelerometers).
    public static let defaultUnitsPerG = 1000.0
    static let standardGravity = 9.80665

    private let environment: SensorEnvironment
    private let node: DeviceNode
    private var assembler = EvdevFrameAssembler()
    /// Frames keep the times the kernel gave their SYN_REPORT: several read at once (a
    /// busy daemon) are not several readings of one instant.
    private var clock = FrameClock(periodMs: nil, timestampsAreMonotonic: true, spreadsFrames: false)
    /// Whether the node stamps events with CLOCK_MONOTONIC (EVIOCSCLOCKID); otherwise its
    /// CLOCK_REALTIME stamps are moved onto the monotonic clock as they are read.
    private var eventsAreMonotonic = false
    private var handler: ((Sample) -> Void)?
    private var latest: Sample?
    private var problems = ProblemLog()
    private var failure = FailureReport()

    public init(device: DeviceDescription, environment: SensorEnvironment) throws(SensorError) {
        self.environment = environment
        identity = SensorIdentity(device: device, backend: .input)
        let logger = environment.logger
        guard let devnode = device.devnode else { throw SensorError("\(device.displayName): no device node") }
        self.devnode = devnode
        node = DeviceNode(path: devnode, loop: environment.loop, chunkSize: EvdevFrameAssembler.eventSize * 64)
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(devnode, [.readOnly, .nonBlocking])
        } catch {
            throw SensorError("\(device.displayName): cannot open \(devnode): \(error)")
        }
        var scale: [Double] = []
        var initial: [Int32] = []
        var warned = false
        for axis in 0..<3 {
            var info = input_absinfo()
            let result = withUnsafeMutableBytes(of: &info) { raw in
                Result { () throws(Errno) in try fd.ioctl(UInt(clinux_eviocgabs(UInt32(axis))), raw.baseAddress!) }
            }
            var unitsPerG = Self.defaultUnitsPerG
            switch result {
            case .success:
                if info.resolution > 0 {
                    unitsPerG = Double(info.resolution)
                } else if !warned {
                    logger.info("\(device.displayName): no axis resolution: taking readings as milli-g")
                    warned = true
                }
                guard info.minimum < info.maximum || (info.minimum == 0 && info.maximum == 0) else {
                    throw SensorError("\(device.displayName): axis \(axis) has range \(info.minimum)…\(info.maximum)")
                }
                initial.append(info.value)
            case .failure(let error):
                if !warned {
                    logger.info("\(device.displayName): EVIOCGABS failed (\(error)): taking readings as milli-g")
                    warned = true
                }
                initial.append(0)
            }
            scale.append(Self.standardGravity / unitsPerG)
        }
        self.scale = scale
        assembler = EvdevFrameAssembler(axes: initial)
        let (matrix, source) = MountMatrix.resolve(
            override: environment.settings.mountMatrixOverride, property: device.properties["ACCEL_MOUNT_MATRIX"],
            attribute: { _ in nil }, device: device.displayName, warn: { logger.warning($0) })
        self.matrix = matrix
        fd.close()
        logger.debug("\(name): input, m/s² per unit \(scale), mount matrix \(matrix) (\(source))")
    }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        self.handler = handler
        guard !node.isOpen else { return }
        do {
            try node.open(chunk: { [weak self] chunk in self?.events(chunk) }, end: { [weak self] why in self?.vanished(why) })
        } catch {
            vanished("cannot open \(devnode): \(error)")
            throw SensorError("\(name): cannot open \(devnode): \(error)")
        }
        var monotonic = CLOCK_MONOTONIC
        eventsAreMonotonic = node.descriptor.map { fd in
            withUnsafeMutableBytes(of: &monotonic) { raw in (try? fd.ioctl(UInt(clinux_eviocsclockid()), raw.baseAddress!)) != nil }
        } ?? false
        clock = FrameClock(periodMs: nil, timestampsAreMonotonic: true, spreadsFrames: false)
        // The current axis values, for a reading before Start returns.
        if let fd = node.descriptor, let values = currentAxes(fd) {
            assembler.axes = values
            latest = sample(values)
        }
        node.drain()
    }

    /// The axes' current values (EVIOCGABS), nil when the device does not say.
    private func currentAxes(_ fd: FileDescriptor) -> [Int32]? {
        var values: [Int32] = []
        for axis in 0..<3 {
            var info = input_absinfo()
            let ok = withUnsafeMutableBytes(of: &info) { raw in
                (try? fd.ioctl(UInt(clinux_eviocgabs(UInt32(axis))), raw.baseAddress!)) != nil
            }
            guard ok else { return nil }
            values.append(info.value)
        }
        return values
    }

    /// Driven by the device: it sends when something changes, so a wish for an earlier
    /// reading has nothing to act on.
    public func requestReading(atMs: Int64) {}
    /// The input core drops a repeated value: a device lying still sends nothing.
    public var delivery: SensorDelivery { .onChange }

    /// An input device has no gyroscope beside its accelerometer axes.
    public var gyroscopeName: String? { nil }
    public func startGyroscope(handler: @escaping (GyroscopeSample) -> Void) {}
    public func stopGyroscope() {}

    public func stop() {
        handler = nil
        node.close()
    }

    public func currentSample() -> Sample? { latest }

    /// One chunk read from the node: whole input events, assembled into frames.
    private func events(_ chunk: ArraySlice<UInt8>) {
        let (events, leftover) = EvdevFrameAssembler.events(in: chunk)
        if leftover != 0 {
            problems.report("partial event", "\(name): \(leftover) trailing bytes do not make an input event: dropped", logger: environment.logger)
        }
        // Realtime stamps onto the monotonic clock, by the two clocks' difference now.
        let nowNs = MonotonicClock.nanoseconds()
        var realtime = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        let shiftNs = eventsAreMonotonic ? 0 : Int64(realtime.tv_sec) &* 1_000_000_000 &+ Int64(realtime.tv_nsec) &- nowNs
        var frames: [(axes: [Int32], timeNs: Int64)] = []
        for event in events {
            switch assembler.feed(type: event.type, code: event.code, value: event.value) {
            case .frame(let axes)?:
                frames.append((axes, event.timeNs &- shiftNs))
            case .dropped?:
                environment.logger.debug("\(name): events dropped by the kernel (SYN_DROPPED): resynchronising")
                if let fd = node.descriptor, let values = currentAxes(fd) { assembler.axes = values }
            case nil:
                break
            }
        }
        guard !frames.isEmpty else { return }
        let (stamps, _) = clock.stamps(readAtMs: nowNs / 1_000_000, timestampsNs: frames.map(\.timeNs))
        for (frame, stamp) in zip(frames, stamps) {
            if let sample = sample(frame.axes, at: stamp) {
                latest = sample
                handler?(sample)
            }
        }
    }

    private func sample(_ axes: [Int32], at timeMs: Int64 = MonotonicClock.milliseconds()) -> Sample? {
        let x = Double(axes[0]) * scale[0], y = Double(axes[1]) * scale[1], z = Double(axes[2]) * scale[2]
        guard [x, y, z].allSatisfy({ abs($0) <= IIOCalibration.plausibleLimit }) else {
            problems.report("out of range", "\(name): reading \(axes) is out of range: dropped", logger: environment.logger)
            return nil
        }
        problems.clear(name, logger: environment.logger)
        let oriented = matrix.apply(x: x, y: y, z: z)
        return Sample(timeMs: timeMs, x: oriented.x, y: oriented.y, z: oriented.z)
    }

    private func vanished(_ why: String) {
        node.close()
        failure.report("\(name): device vanished (\(why))", reason: "device vanished", environment)
    }
}

extension BackendKind {
    public static let input = BackendKind(rawValue: "input")
}

extension EvdevSensor {
    /// An evdev node marked as an accelerometer (udev's ID_INPUT_ACCELEROMETER, or
    /// INPUT_PROP_ACCELEROMETER, bit 6 of the parent's `properties` bitmap).
    public static let driver = SensorDriver(
        kind: .input, typeWord: "input-accel", probes: [],
        accepts: { $0.subsystem == "input" && ($0.devnode?.hasPrefix("/dev/input/event") ?? false) },
        detects: { device in
            if device.properties["ID_INPUT_ACCELEROMETER"] == "1" { return true }
            guard let bitmap = device.parentAttributes["properties"], let last = bitmap.split(separator: " ").last,
                  let word = UInt64(last, radix: 16) else { return false }
            return word & (1 << 6) != 0
        },
        open: { device, environment throws(SensorError) in try EvdevSensor(device: device, environment: environment) })
}
