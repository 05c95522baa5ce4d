import Posix
import OrientationEngine

/// A hwmon light sensor (iio-sensor-proxy's `hwmon-als`, the Apple SMC's): its `light`
/// attribute reads "(left,right)" on a 0–255 scale; the level is the brighter side as a
/// percentage, in the vendor's unit. Polled every 8 s, as iio-sensor-proxy does. Found
/// on a hwmon device (iio-sensor-proxy's udev rule) or on the applesmc platform device
/// itself (where Debian 12's iio-sensor-proxy looks).
enum HwmonLightSensor {
    static let backend = BackendKind(rawValue: "hwmon-als")
    static let intervalMs: Int64 = 8000
    static let fullScale = 255.0

    static let driver = AuxiliaryDriver(kind: .light, backend: backend, subsystem: "hwmon") { device, loop in
        device.has("light") ? .success(open(device, loop: loop)) : nil
    }

    static let platformDriver = AuxiliaryDriver(kind: .light, backend: backend, subsystem: "platform") { device, loop in
        device.properties["MODALIAS"] == "platform:applesmc" && device.has("light") ? .success(open(device, loop: loop)) : nil
    }

    static func open(_ device: AuxiliaryDevice, loop: EventLoop) -> AuxiliarySensor {
        let name = device.identityName
        return PolledAuxiliarySensor(kind: .light, identity: device.identity(backend), syspath: device.syspath,
                                     attribute: "light", intervalMs: intervalMs, loop: loop) { text in
            guard let level = parse(text) else {
                return .failure(SensorError("\(name): the light level \"\(printable(text))\" is not \"(left,right)\""))
            }
            return IIOLightSensor.lightReading(level, unit: .vendor, name: name)
        }
    }

    /// "(12,34)" → 13.33…: the larger of the two, as a percentage of full scale.
    static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("("), trimmed.hasSuffix(")") else { return nil }
        let parts = trimmed.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let left = SysfsNumber.parseInt(parts[0]), let right = SysfsNumber.parseInt(parts[1]) else { return nil }
        return Double(max(left, right)) / fullScale * 100
    }
}
