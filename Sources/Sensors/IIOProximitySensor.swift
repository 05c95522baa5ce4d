import Posix

/// An IIO proximity sensor read by polling (iio-sensor-proxy's `iio-poll-proximity`):
/// `in_proximity_raw` or `in_proximity0_raw`, compared with the near level udev gives in
/// `PROXIMITY_NEAR_LEVEL`, else the kernel's `in_proximity_nearlevel` attribute (device
/// trees set it for sensors such as the PinePhone's stk3310). Without a near level the
/// raw value means nothing, so the sensor is not used. Polled every 700 ms.
enum IIOProximitySensor {
    static let backend = BackendKind(rawValue: "iio-poll-proximity")
    static let intervalMs: Int64 = 700
    static let channels = ["in_proximity", "in_proximity0"]

    static let driver = AuxiliaryDriver(kind: .proximity, backend: backend, subsystem: "iio") { device, loop in
        guard let channel = channels.first(where: { device.has($0 + "_raw") }) else { return nil }
        let name = device.identityName
        var threshold: ProximityThreshold
        switch nearLevel(property: device.properties["PROXIMITY_NEAR_LEVEL"], attribute: device.attribute("in_proximity_nearlevel")) {
        case .success(let level): threshold = ProximityThreshold(nearLevel: level)
        case .failure(let error): return .failure(SensorError("\(name): \(error.message)"))
        }
        return .success(PolledAuxiliarySensor(kind: .proximity, identity: device.identity(backend), syspath: device.syspath,
                                              attribute: channel + "_raw", intervalMs: intervalMs, loop: loop) { text in
            guard let value = SysfsNumber.parseDouble(text), value.isFinite else {
                return .failure(SensorError("\(name): the proximity \"\(printable(text))\" is not a number"))
            }
            return .success(.proximity(near: threshold.isNear(value)))
        })
    }

    /// The near level: udev's property, which a hwdb or rule sets to correct the
    /// device's, else the device's attribute. A source that is not a positive number
    /// gives way to the other; with neither usable the error names what was found.
    static func nearLevel(property: String?, attribute: String?) -> Result<Double, SensorError> {
        let sources = [("udev property PROXIMITY_NEAR_LEVEL", property), ("in_proximity_nearlevel", attribute)]
        var unusable: String?
        for case let (source, text?) in sources {
            if let value = SysfsNumber.parseDouble(text), value.isFinite, value > 0 { return .success(value) }
            unusable = unusable ?? "the near level \"\(printable(text))\" (\(source)) is not a positive number: proximity not used"
        }
        return .failure(SensorError(unusable ?? "no near level (udev property PROXIMITY_NEAR_LEVEL or in_proximity_nearlevel): proximity not used"))
    }
}

/// Near and far around the near level, decided as iio-sensor-proxy decides so that its
/// clients' tuned levels mean the same here. The threshold moves away from the side the
/// previous reading lay on: after a reading above the level it is 90 % of the level,
/// after one at or below it 110 %. So a steady value is near exactly when it is above
/// the level, and a value that has just crossed it by less than the margin waits one
/// more reading before the screen blanks or lights: a value hovering at the level does
/// not flip at every poll.
public struct ProximityThreshold: Sendable, Equatable {
    public let nearLevel: Double
    /// The last reading (nil before the first, which counts as far).
    public private(set) var lastValue: Double?
    public static let enterFactor = 1.1
    public static let leaveFactor = 0.9

    public init(nearLevel: Double) { self.nearLevel = nearLevel }

    /// Whether `value`, the newest reading, is near; remembers it for the next.
    public mutating func isNear(_ value: Double) -> Bool {
        let wasAbove = (lastValue ?? 0) > nearLevel
        lastValue = value
        return value > nearLevel * (wasAbove ? Self.leaveFactor : Self.enterFactor)
    }
}
