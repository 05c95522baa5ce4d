// Fuzz target: the mount-matrix parser (`MountMatrix.parse`,
// Sources/Sensors/MountMatrix.swift) and `MountMatrix.resolve`, which logs a
// malformed matrix from udev or sysfs.
//
// Input: the text of ACCEL_MOUNT_MATRIX or a `mount_matrix` attribute. A parsed
// matrix is 3×3, finite, within ±1000, with no zero row; applying it to a finite
// vector gives a finite one, and its description parses back to within rounding.
import Sensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMountMatrix(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    var warnings = 0
    let (resolved, source) = MountMatrix.resolve(override: nil, property: text, attribute: { _ in nil },
                                                 device: "iio:device0", warn: { _ in warnings += 1 })
    guard let matrix = MountMatrix.parse(text) else {
        precondition(warnings == 1 && source == .identity && resolved == .identity, "malformed matrix not reported")
        return 0
    }
    precondition(warnings == 0 && resolved == matrix, "resolve differs from parse")
    precondition(matrix.rows.count == 3 && matrix.rows.allSatisfy { $0.count == 3 }, "not 3×3")
    for row in matrix.rows {
        precondition(row.allSatisfy { $0.isFinite && abs($0) <= 1000 }, "entry out of range in \(row)")
        precondition(row.contains { $0 != 0 }, "zero row")
    }
    let v = matrix.apply(x: 9.81, y: -0.5, z: 1e-3)
    precondition(v.x.isFinite && v.y.isFinite && v.z.isFinite, "apply not finite")
    let description = matrix.description
    if let again = MountMatrix.parse(description) {
        for (a, b) in zip(matrix.rows.joined(), again.rows.joined()) {
            precondition(abs(a - b) <= 1e-6, "description '\(description)' changes \(a) to \(b)")
        }
    }
    return 0
}
