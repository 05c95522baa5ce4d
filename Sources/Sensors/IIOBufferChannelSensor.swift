import Posix

/// An auxiliary sensor read through an IIO buffer with one channel enabled: the HID
/// sensor hub's ambient light (`in_intensity_both`, iio-sensor-proxy's `iio-buffer-als`)
/// and compass (`in_rot_from_north_magnetic_tilt_comp`, `iio-buffer-compass`). Each
/// batch of frames the device sends gives one reading, its last frame's; the buffer is
/// enabled only while started. The channel's raw attribute, where there is one, gives
/// the reading at start.
final class IIOBufferChannelSensor: AuxiliarySensor {
    let kind: AuxiliaryKind
    let identity: SensorIdentity
    let syspath: String
    private let channel: String
    private let layout: IIOFrameLayout
    private let calibration: IIOChannelCalibration
    private let convert: (Double) -> Result<AuxiliaryReading, SensorError>
    private let node: DeviceNode
    private var onReading: ((AuxiliaryReading) -> Void)?
    private var onProblem: ((SensorError) -> Void)?

    static let lightDriver = driver(kind: .light, backend: BackendKind(rawValue: "iio-buffer-als"), channel: "in_intensity_both") { level, name in
        IIOLightSensor.lightReading(level, unit: .lux, name: name)
    }

    static let compassDriver = driver(kind: .compass, backend: BackendKind(rawValue: "iio-buffer-compass"),
                                      channel: IIOCompassSensor.channel) { degrees, name in
        IIOCompassSensor.headingReading(degrees, name: name)
    }

    static func driver(kind: AuxiliaryKind, backend: BackendKind, channel: String,
                       convert: @escaping @Sendable (Double, String) -> Result<AuxiliaryReading, SensorError>) -> AuxiliaryDriver {
        AuxiliaryDriver(kind: kind, backend: backend, subsystem: "iio") { device, loop in
            guard device.has("scan_elements/\(channel)_en") else { return nil }
            let name = device.identityName
            do throws(SensorError) {
                return .success(try IIOBufferChannelSensor(device: device, kind: kind, backend: backend, channel: channel, loop: loop) {
                    convert($0, name)
                })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Sets the buffer up with only `channel` enabled, left disabled.
    init(device: AuxiliaryDevice, kind: AuxiliaryKind, backend: BackendKind, channel: String, loop: EventLoop,
         convert: @escaping (Double) -> Result<AuxiliaryReading, SensorError>) throws(SensorError) {
        let name = device.identityName
        guard let devnode = device.devnode else { throw SensorError("\(name): no device node for the buffer") }
        guard device.has("buffer/enable") else { throw SensorError("\(name): no buffer/enable attribute") }
        _ = SysfsFile.write(device.syspath + "/buffer/enable", "0")
        guard let indexText = device.attribute("scan_elements/\(channel)_index"),
              let index = SysfsNumber.parseInt(indexText), index >= 0, index < 4096 else {
            throw SensorError("\(name): scan_elements/\(channel)_index is missing or not an index")
        }
        guard let typeText = device.attribute("scan_elements/\(channel)_type"), let type = IIOScanType.parse(typeText) else {
            throw SensorError("\(name): scan_elements/\(channel)_type is missing or not a scan type")
        }
        switch IIOChannelCalibration.read(device, channel: channel) {
        case .success(let value): calibration = value
        case .failure(let error): throw SensorError("\(name): \(error.message)")
        }
        let scan = device.syspath + "/scan_elements"
        for entry in SysfsFile.list(scan) where entry.hasSuffix("_en") {
            let on = entry == channel + "_en"
            if case .failure(let error) = SysfsFile.write(scan + "/" + entry, on ? "1" : "0"), on {
                throw SensorError("\(name): cannot enable scan_elements/\(entry): \(error)")
            }
        }
        guard let layout = IIOFrameLayout(channels: [IIOChannel(name: channel, index: Int(index), type: type)]) else {
            throw SensorError("\(name): no channels")
        }
        // Not fatal: buffers without a trigger work too.
        _ = IIOTrigger.selectOwn(syspath: device.syspath, deviceName: device.attribute("name"), sysname: device.sysname)
        self.kind = kind
        self.channel = channel
        self.layout = layout
        self.convert = convert
        identity = device.identity(backend)
        syspath = device.syspath
        node = DeviceNode(path: devnode, loop: loop, chunkSize: layout.frameBytes * 64)
    }

    deinit { if node.isOpen { disable() } }

    func start(reading: @escaping (AuxiliaryReading) -> Void, problem: @escaping (SensorError) -> Void,
               vanished: @escaping (String) -> Void) throws(SensorError) {
        onReading = reading
        onProblem = problem
        guard !node.isOpen else { return }
        // The value now, while the buffer is still off (its raw attribute cannot be read
        // once it is on).
        if let text = SysfsFile.read(syspath + "/" + channel + "_raw"), let raw = SysfsNumber.parseDouble(text) {
            deliver(raw)
        }
        if case .failure(let error) = SysfsFile.write(syspath + "/buffer/enable", "1") {
            throw SensorError("\(identity.name): cannot enable the buffer: \(error)")
        }
        do {
            try node.open(chunk: { [weak self] chunk in self?.frames(chunk) },
                          end: { [weak self] why in
                              self?.disable()
                              vanished(why)
                          })
        } catch {
            _ = SysfsFile.write(syspath + "/buffer/enable", "0")
            throw SensorError("\(identity.name): cannot read \(node.path): \(error)")
        }
    }

    func stop() {
        onReading = nil
        onProblem = nil
        disable()
    }

    private func disable() {
        node.close()
        _ = SysfsFile.write(syspath + "/buffer/enable", "0")
    }

    /// A batch of frames: the last whole one is the reading (a trailing partial frame is
    /// dropped).
    private func frames(_ chunk: ArraySlice<UInt8>) {
        let whole = chunk.count / layout.frameBytes
        guard whole > 0 else { return }
        let start = chunk.startIndex + (whole - 1) * layout.frameBytes
        guard let raw = layout.value(of: channel, in: chunk[start..<start + layout.frameBytes]) else { return }
        deliver(Double(raw))
    }

    private func deliver(_ raw: Double) {
        switch convert((raw + calibration.offset) * calibration.scale) {
        case .success(let value): onReading?(value)
        case .failure(let error): onProblem?(error)
        }
    }
}
