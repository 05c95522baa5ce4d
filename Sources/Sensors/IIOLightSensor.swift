import Posix

/// An IIO ambient light sensor read by polling (iio-sensor-proxy's `iio-poll-als`): the
/// first illuminance channel present, `_input` (lux) or else `_raw` plus its offset,
/// times its scale. Polled at the channel's integration time, else every 800 ms.
enum IIOLightSensor {
    static let backend = BackendKind(rawValue: "iio-poll-als")
    static let channels = ["in_illuminance", "in_illuminance0", "in_illuminance_clear", "in_intensity_clear"]
    static let defaultIntervalMs: Int64 = 800

    static let driver = AuxiliaryDriver(kind: .light, backend: backend, subsystem: "iio") { device, loop in
        guard let (channel, processed) = channels.lazy.compactMap({ channel -> (String, Bool)? in
            device.has(channel + "_input") ? (channel, true) : device.has(channel + "_raw") ? (channel, false) : nil
        }).first else { return nil }
        let name = device.identityName
        var scale = 1.0, offset = 0.0
        if !processed {
            switch IIOChannelCalibration.read(device, channel: channel) {
            case .success(let value): (scale, offset) = (value.scale, value.offset)
            case .failure(let error): return .failure(SensorError("\(name): \(error.message)"))
            }
        }
        var interval = defaultIntervalMs
        if let text = device.attribute(channel + "_integration_time") {
            // Seconds; a value outside 10 ms–10 s is not believed.
            if let seconds = SysfsNumber.parseDouble(text), seconds >= 0.01, seconds <= 10 {
                interval = Int64((seconds * 1000).rounded())
            }
        }
        return .success(PolledAuxiliarySensor(kind: .light, identity: device.identity(backend), syspath: device.syspath,
                                              attribute: channel + (processed ? "_input" : "_raw"), intervalMs: interval,
                                              loop: loop) { text in
            parseLevel(text, name: name).flatMap { value in
                lightReading((value + offset) * scale, unit: .lux, name: name)
            }
        })
    }

    static func parseLevel(_ text: String, name: String) -> Result<Double, SensorError> {
        guard let value = SysfsNumber.parseDouble(text) else {
            return .failure(SensorError("\(name): the light level \"\(printable(text))\" is not a number"))
        }
        return .success(value)
    }

    /// A level that is one: finite and not negative.
    static func lightReading(_ level: Double, unit: LightUnit, name: String) -> Result<AuxiliaryReading, SensorError> {
        guard level.isFinite, level >= 0 else {
            return .failure(SensorError("\(name): a light level of \(SysfsNumber.format(level)) is not one"))
        }
        return .success(.light(level, unit))
    }
}

/// An IIO channel's scale and offset: `<channel>_scale`, else the type's shared
/// `in_<type>_scale` (`in_illuminance0` → `in_illuminance`,
/// `in_rot_from_north_magnetic_tilt_comp` → `in_rot`); likewise the offset. Absent
/// means 1 and 0; read as the accelerometer's are (`IIOCalibration`), and a scale must
/// be positive.
struct IIOChannelCalibration: Equatable {
    var scale = 1.0
    var offset = 0.0

    static func read(_ device: AuxiliaryDevice, channel: String) -> Result<IIOChannelCalibration, SensorError> {
        read({ device.attribute($0) }, channel: channel)
    }

    static func read(_ attribute: (String) -> String?, channel: String) -> Result<IIOChannelCalibration, SensorError> {
        let words = channel.split(separator: "_")
        let type = words.prefix(2).joined(separator: "_").filter { !$0.isNumber }
        var result = IIOChannelCalibration()
        switch IIOCalibration.value(attribute, [channel + "_scale", type + "_scale"], absent: 1) {
        case .failure(let error): return .failure(error)
        case .success(let (value, name)):
            guard value.isFinite, value > 0 else {
                return .failure(SensorError("\(name) is \(SysfsNumber.format(value)): a scale must be positive"))
            }
            result.scale = value
        }
        switch IIOCalibration.value(attribute, [channel + "_offset", type + "_offset"], absent: 0) {
        case .failure(let error): return .failure(error)
        case .success(let (value, name)):
            guard value.isFinite else { return .failure(SensorError("\(name) is not a finite offset")) }
            result.offset = value
        }
        return .success(result)
    }
}
