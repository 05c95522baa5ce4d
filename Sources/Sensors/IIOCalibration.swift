/// How raw IIO accelerometer readings become m/s²: value = (raw + offset) × scale, per axis.
public struct IIOCalibration: Sendable, Equatable {
    public var scale: [Double]
    public var offset: [Double]

    public static let axes = ["x", "y", "z"]
    /// Readings beyond this magnitude, in m/s² after scale (about 100,000 g: hundreds of times
    /// the widest accelerometer's range), are no reading at all: dropped. Anything short of
    /// it reaches the engine, which learns the sensor's own 1 g, so that a scale wrong by the
    /// powers of ten drivers get wrong (milli-g taken for g, a HID sensor hub's unit
    /// exponent: a thousand times too large reads 9,800 m/s² at rest) still gives the
    /// orientation. (At 1,000 m/s², such a sensor's every reading was dropped.)
    public static let plausibleLimit = 1_000_000.0

    public init(scale: [Double], offset: [Double]) {
        self.scale = scale
        self.offset = offset
    }

    /// Reads `in_accel_{x,y,z}_scale` or `in_accel_scale`, and the same for offsets,
    /// through `attribute` (nil = absent); `channel` "anglvel" reads a gyroscope's. Scale
    /// absent = 1, offset absent = 0. A malformed, zero or negative scale, or a
    /// malformed offset, is an error naming the attribute.
    public static func read(_ attribute: (String) -> String?, channel: String = "accel") -> Result<IIOCalibration, SensorError> {
        var scale: [Double] = []
        var offset: [Double] = []
        for axis in axes {
            switch value(attribute, ["in_\(channel)_\(axis)_scale", "in_\(channel)_scale"], absent: 1) {
            case .failure(let error): return .failure(error)
            case .success(let (value, name)):
                guard value > 0 else {
                    return .failure(SensorError("\(name) is \(SysfsNumber.format(value)): a scale must be positive"))
                }
                scale.append(value)
            }
            switch value(attribute, ["in_\(channel)_\(axis)_offset", "in_\(channel)_offset"], absent: 0) {
            case .failure(let error): return .failure(error)
            case .success(let (value, _)): offset.append(value)
            }
        }
        return .success(IIOCalibration(scale: scale, offset: offset))
    }

    /// The first of `names` present, parsed (with its name); `absent` when none is.
    static func value(_ attribute: (String) -> String?, _ names: [String], absent: Double) -> Result<(Double, String), SensorError> {
        for name in names {
            guard let text = attribute(name) else { continue }
            guard let value = SysfsNumber.parseDouble(text) else {
                return .failure(SensorError("\(name) \"\(printable(text))\" is not a number"))
            }
            return .success((value, name))
        }
        return .success((absent, "default"))
    }

    /// Converts raw readings to m/s²; nil when the result is not plausible.
    public func convert(_ raw: [Double]) -> (Double, Double, Double)? {
        guard raw.count == 3 else { return nil }
        return convert(raw[0], raw[1], raw[2])
    }

    /// The same for three readings, without allocating (the polling backend calls it on
    /// every tick).
    public func convert(_ x: Double, _ y: Double, _ z: Double) -> (Double, Double, Double)? {
        guard scale.count == 3, offset.count == 3 else { return nil }
        let cx = (x + offset[0]) * scale[0], cy = (y + offset[1]) * scale[1], cz = (z + offset[2]) * scale[2]
        func plausible(_ value: Double) -> Bool { value.isFinite && abs(value) <= Self.plausibleLimit }
        guard plausible(cx), plausible(cy), plausible(cz) else { return nil }
        return (cx, cy, cz)
    }
}
