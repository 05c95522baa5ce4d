import Posix

/// An IIO proximity sensor read by polling (iio-sensor-proxy's `iio-poll-proximity`):
/// `in_proximity_raw` or `in_proximity0_raw`, near above the level udev gives in
/// `PROXIMITY_NEAR_LEVEL` (else the `in_proximity_nearlevel` attribute). Without a near
/// level the raw value means nothing, so the sensor is not used. Polled every 700 ms.
enum IIOProximitySensor {
    static let backend = BackendKind(rawValue: "iio-poll-proximity")
    static let intervalMs: Int64 = 700
    static let channels = ["in_proximity", "in_proximity0"]

    static let driver = AuxiliaryDriver(kind: .proximity, backend: backend, subsystem: "iio") { device, loop in
        guard let channel = channels.first(where: { device.has($0 + "_raw") }) else { return nil }
        let name = device.identityName
        let level: Double
        if let text = device.properties["PROXIMITY_NEAR_LEVEL"] ?? device.attribute("in_proximity_nearlevel") {
            guard let value = SysfsNumber.parseDouble(text), value.isFinite, value > 0 else {
                return .failure(SensorError("\(name): the near level \"\(printable(text))\" is not a positive number: proximity not used"))
            }
            level = value
        } else {
            return .failure(SensorError("\(name): no near level (udev property PROXIMITY_NEAR_LEVEL): proximity not used"))
        }
        let threshold = ProximityThreshold(nearLevel: level)
        return .success(PolledAuxiliarySensor(kind: .proximity, identity: device.identity(backend), syspath: device.syspath,
                                              attribute: channel + "_raw", intervalMs: intervalMs, loop: loop) { text, last in
            guard let value = SysfsNumber.parseDouble(text), value.isFinite else {
                return .failure(SensorError("\(name): the proximity \"\(printable(text))\" is not a number"))
            }
            let wasNear = if case .proximity(let near)? = last { near } else { false }
            return .success(.proximity(near: threshold.isNear(value, wasNear: wasNear)))
        })
    }
}

/// Near and far with hysteresis around the near level, so that a value hovering at the
/// level does not blank and light the screen in turn: it becomes near above 110 % of the
/// level and far again below 90 % (iio-sensor-proxy's margins).
public struct ProximityThreshold: Sendable, Equatable {
    public var nearLevel: Double
    public static let enterFactor = 1.1
    public static let leaveFactor = 0.9

    public init(nearLevel: Double) { self.nearLevel = nearLevel }

    public func isNear(_ value: Double, wasNear: Bool) -> Bool {
        value > nearLevel * (wasNear ? Self.leaveFactor : Self.enterFactor)
    }
}
