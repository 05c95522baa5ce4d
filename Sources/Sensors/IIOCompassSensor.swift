import Posix

/// An IIO compass read by polling its tilt-compensated heading
/// (`in_rot_from_north_magnetic_tilt_comp_raw`, times its scale, plus its offset, in
/// degrees), every 700 ms as iio-sensor-proxy reads its buffer compass. Used where the
/// device has no buffer for the channel.
enum IIOCompassSensor {
    static let backend = BackendKind(rawValue: "iio-poll-compass")
    static let channel = "in_rot_from_north_magnetic_tilt_comp"
    static let intervalMs: Int64 = 700

    static let driver = AuxiliaryDriver(kind: .compass, backend: backend, subsystem: "iio") { device, loop in
        guard device.has(channel + "_raw") else { return nil }
        let name = device.identityName
        let calibration: IIOChannelCalibration
        switch IIOChannelCalibration.read(device, channel: channel) {
        case .success(let value): calibration = value
        case .failure(let error): return .failure(SensorError("\(name): \(error.message)"))
        }
        return .success(PolledAuxiliarySensor(kind: .compass, identity: device.identity(backend), syspath: device.syspath,
                                              attribute: channel + "_raw", intervalMs: intervalMs, loop: loop) { text in
            guard let raw = SysfsNumber.parseDouble(text) else {
                return .failure(SensorError("\(name): the heading \"\(printable(text))\" is not a number"))
            }
            return headingReading((raw + calibration.offset) * calibration.scale, name: name)
        })
    }

    /// A heading that is one: finite, within a turn either way.
    static func headingReading(_ degrees: Double, name: String) -> Result<AuxiliaryReading, SensorError> {
        guard degrees.isFinite, degrees >= -360, degrees <= 360 else {
            return .failure(SensorError("\(name): a heading of \(SysfsNumber.format(degrees))° is not one"))
        }
        return .success(.heading(degrees))
    }
}
