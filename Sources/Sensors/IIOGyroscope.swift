import OrientationEngine
import Posix

/// A gyroscope on the accelerometer's own IIO device (a combined IMU: the PinePhone's
/// MPU-6050, the PinePhone Pro's MPU-6500): `in_anglvel_{x,y,z}_raw`, their scale and
/// offset (`in_anglvel_scale` or per axis), and their mount matrix
/// (`in_anglvel_mount_matrix`, else the accelerometer's: the same chip, the same axes).
/// Read at the accelerometer's tick, in rad/s, bias included.
struct IIOGyroscope {
    let calibration: IIOCalibration
    let matrix: MountMatrix
    private let paths: [String]

    /// The gyroscope at `syspath`, nil when the device has none; one warning, and nil,
    /// when its attributes cannot be used (it is then not read, and the accelerometer
    /// decides alone).
    static func open(syspath: String, accelerometerMatrix: MountMatrix, label: String, logger: Logger) -> IIOGyroscope? {
        let paths = IIOCalibration.axes.map { syspath + "/in_anglvel_\($0)_raw" }
        guard paths.allSatisfy({ SysfsFile.exists($0) }) else { return nil }
        let attribute: (String) -> String? = { SysfsFile.read(syspath + "/" + $0) }
        let calibration: IIOCalibration
        switch IIOCalibration.read(attribute, channel: "anglvel") {
        case .success(let value): calibration = value
        case .failure(let error):
            logger.warning("\(label): gyroscope not used: \(error.message)")
            return nil
        }
        var matrix = accelerometerMatrix
        if let text = attribute("in_anglvel_mount_matrix") {
            guard let parsed = MountMatrix.parse(text) else {
                logger.warning("\(label): gyroscope not used: in_anglvel_mount_matrix \"\(printable(text))\" is not a matrix")
                return nil
            }
            matrix = parsed
        }
        return IIOGyroscope(calibration: calibration, matrix: matrix, paths: paths)
    }

    /// One reading stamped `timeMs`; nil when an attribute is missing or malformed.
    func read(at timeMs: Int64) -> GyroscopeSample? {
        var raw: [Double] = []
        raw.reserveCapacity(3)
        for path in paths {
            guard let text = SysfsFile.read(path), let value = SysfsNumber.parseDouble(text) else { return nil }
            raw.append(value)
        }
        guard let (x, y, z) = calibration.convert(raw) else { return nil }
        let r = matrix.apply(x: x, y: y, z: z)
        return GyroscopeSample(timeMs: timeMs, x: r.x, y: r.y, z: r.z)
    }
}
