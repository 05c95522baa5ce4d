import OrientationEngine
import Posix

/// The gyroscope of the accelerometer's own sensor: on its IIO device (a combined IMU: the
/// PinePhone's MPU-6050, the PinePhone Pro's MPU-6500), or on a sibling device of the
/// same HID sensor hub (`gyro_3d` beside `accel_3d`, each under its own
/// `HID-SENSOR-2000xx` collection of one hub). `in_anglvel_{x,y,z}_raw`, their scale and
/// offset (`in_anglvel_scale` or per axis), and their mount matrix
/// (`in_anglvel_mount_matrix`, else the gyroscope device's `mount_matrix`, else the
/// accelerometer's). Read at the accelerometer's tick, in rad/s, bias included.
///
/// A sibling whose `label` places it elsewhere than the accelerometer (`…-base` beside
/// `…-display`) is never paired with it: a base's gyroscope says nothing of how the
/// display is held.
final class IIOGyroscope {
    let calibration: IIOCalibration
    let matrix: MountMatrix
    /// The device the gyroscope is on (the accelerometer's own, or a sibling).
    let syspath: String
    /// Its human-readable name: the IIO `name` and kernel name.
    let name: String
    /// The three attribute files, open from the first reading until ``close()``: one
    /// `pread` each per tick, as the accelerometer's. Checked for having been replaced
    /// about once a second (``HeldAttributes``; test rigs replace them).
    private let files: HeldAttributes

    init(calibration: IIOCalibration, matrix: MountMatrix, syspath: String, name: String) {
        self.calibration = calibration
        self.matrix = matrix
        self.syspath = syspath
        self.name = name
        files = HeldAttributes(directory: syspath, names: IIOCalibration.axes.map { "in_anglvel_\($0)_raw" },
                               loop: nil, limit: 64)
    }

    /// Closes the attribute files (the sensor stopped).
    func close() { files.close() }

    /// The gyroscope for the accelerometer at `syspath`: its own (unless `ownDevice` is
    /// false: a device whose buffer is enabled refuses reads of its raw attributes), else
    /// a HID sensor hub sibling's; nil when there is none (or none that can be used, said
    /// in one warning).
    static func find(accelerometer syspath: String, name: String, accelerometerMatrix: MountMatrix, ownDevice: Bool = true,
                     logger: Logger) -> IIOGyroscope? {
        if ownDevice, let own = open(syspath: syspath, name: name, sibling: false, accelerometerMatrix: accelerometerMatrix, label: name, logger: logger) {
            return own
        }
        let parent = directory(of: syspath)
        guard basename(parent).hasPrefix("HID-SENSOR-") else { return nil }
        let hub = directory(of: parent)
        let place = location(SysfsFile.read(syspath + "/label"))
        for collection in SysfsFile.list(hub).sorted() where collection.hasPrefix("HID-SENSOR-") {
            for device in SysfsFile.list(hub + "/" + collection).sorted() where device.hasPrefix("iio:device") {
                let path = hub + "/" + collection + "/" + device
                guard path != syspath, SysfsFile.exists(path + "/in_anglvel_x_raw") else { continue }
                if location(SysfsFile.read(path + "/label")) != place {
                    logger.debug("\(name): gyroscope \(device) is elsewhere (label): not paired")
                    continue
                }
                let siblingName = (SysfsFile.read(path + "/name").map { $0 + " (\(device))" }) ?? device
                return open(syspath: path, name: siblingName, sibling: true, accelerometerMatrix: accelerometerMatrix, label: name, logger: logger)
            }
        }
        return nil
    }

    /// "display" of "accel-display", "base" of "anglvel-base"; nil without a label.
    static func location(_ label: String?) -> String? {
        guard let label, let dash = label.lastIndex(of: "-") else { return nil }
        return String(label[label.index(after: dash)...])
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[..<slash])
    }

    private static func basename(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The gyroscope at `syspath`, nil when the device has none; one warning, and nil,
    /// when its attributes cannot be used (it is then not read, and the accelerometer
    /// decides alone).
    /// `sibling`: a device of its own, whose `mount_matrix` is the gyroscope's (on the
    /// accelerometer's own device, that one is already in the accelerometer's matrix).
    static func open(syspath: String, name: String, sibling: Bool, accelerometerMatrix: MountMatrix, label: String,
                     logger: Logger) -> IIOGyroscope? {
        let paths = IIOCalibration.axes.map { syspath + "/in_anglvel_\($0)_raw" }
        let missing = zip(IIOCalibration.axes, paths).filter { !SysfsFile.exists($0.1) }.map { "in_anglvel_\($0.0)_raw" }
        guard missing.isEmpty else {
            // Some axes but not all: a gyroscope, but not one that can be read.
            if missing.count < paths.count {
                logger.warning("\(label): gyroscope not used: \(missing.joined(separator: ", ")) missing")
            }
            return nil
        }
        let attribute: (String) -> String? = { SysfsFile.read(syspath + "/" + $0) }
        let calibration: IIOCalibration
        switch IIOCalibration.read(attribute, channel: "anglvel") {
        case .success(let value): calibration = value
        case .failure(let error):
            logger.warning("\(label): gyroscope not used: \(error.message)")
            return nil
        }
        var matrix = accelerometerMatrix
        for attributeName in sibling ? ["in_anglvel_mount_matrix", "mount_matrix"] : ["in_anglvel_mount_matrix"] {
            guard let text = attribute(attributeName) else { continue }
            guard let parsed = MountMatrix.parse(text) else {
                logger.warning("\(label): gyroscope not used: \(attributeName) \"\(printable(text))\" is not a matrix")
                return nil
            }
            matrix = parsed
            break
        }
        return IIOGyroscope(calibration: calibration, matrix: matrix, syspath: syspath, name: name)
    }

    /// One axis's raw value; nil (the file closed, to be opened again by name at the next
    /// reading) when it cannot be read or is not a number.
    private func axis(_ i: Int) -> Double? {
        guard case .success(let text) = files.text(i) else { return nil }
        return SysfsNumber.parseDouble(text)
    }

    /// Whether its device is still there (a sibling can be unplugged or unbound alone).
    var isPresent: Bool { SysfsFile.exists(syspath + "/in_anglvel_x_raw") }

    /// One reading stamped `timeMs`; nil when an attribute is missing or malformed.
    func read(at timeMs: Int64) -> GyroscopeSample? {
        guard let x0 = axis(0), let y0 = axis(1), let z0 = axis(2) else { return nil }
        guard let (x, y, z) = calibration.convert(x0, y0, z0) else { return nil }
        let r = matrix.apply(x: x, y: y, z: z)
        return GyroscopeSample(timeMs: timeMs, x: r.x, y: r.y, z: r.z)
    }
}
