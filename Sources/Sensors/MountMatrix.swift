/// The 3×3 rotation from the sensor's axes to the device's (IIO `mount_matrix`):
/// device = M · sensor, rows separated by ';', entries by ',' ("0, 1, 0; -1, 0, 0; 0, 0, 1").
public struct MountMatrix: Sendable, Equatable, CustomStringConvertible {
    /// Row-major entries.
    public var rows: [[Double]]

    public static let identity = MountMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public init(rows: [[Double]]) { self.rows = rows }

    /// Parses the udev/sysfs text form; nil when it is not three rows of three finite
    /// numbers, or when a row is all zeros (the matrix would drop an axis).
    public static func parse(_ text: some StringProtocol) -> MountMatrix? {
        let rowTexts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { return nil }
        var rows: [[Double]] = []
        for rowText in rowTexts {
            let entries = rowText.split(separator: ",", omittingEmptySubsequences: false)
            guard entries.count == 3 else { return nil }
            var row: [Double] = []
            for entry in entries {
                guard let value = SysfsNumber.parseDouble(entry), abs(value) <= 1000 else { return nil }
                row.append(value)
            }
            guard row.contains(where: { $0 != 0 }) else { return nil }
            rows.append(row)
        }
        return MountMatrix(rows: rows)
    }

    public func apply(x: Double, y: Double, z: Double) -> (x: Double, y: Double, z: Double) {
        (rows[0][0] * x + rows[0][1] * y + rows[0][2] * z,
         rows[1][0] * x + rows[1][1] * y + rows[1][2] * z,
         rows[2][0] * x + rows[2][1] * y + rows[2][2] * z)
    }

    public var description: String {
        rows.map { $0.map { SysfsNumber.format($0) }.joined(separator: ", ") }.joined(separator: "; ")
    }
}

/// Where a mount matrix came from, for the log.
public enum MountMatrixSource: Sendable, Equatable {
    case configuration, udev(String), sysfs(String), identity
}

extension MountMatrix {
    /// The sysfs attributes that may carry a mount matrix, in order of preference.
    public static let sysfsAttributes = ["mount_matrix", "in_accel_mount_matrix", "in_mount_matrix"]

    /// Resolves a device's matrix: the configuration override, else udev
    /// `ACCEL_MOUNT_MATRIX`, else the first sysfs attribute present, else identity.
    /// A malformed source is reported through `warn` and gives identity.
    public static func resolve(override: MountMatrix?, property: String?, attribute: (String) -> String?,
                               device: String, warn: (String) -> Void) -> (MountMatrix, MountMatrixSource) {
        if let override { return (override, .configuration) }
        if let property {
            if let matrix = parse(property) { return (matrix, .udev("ACCEL_MOUNT_MATRIX")) }
            warn("\(device): malformed ACCEL_MOUNT_MATRIX \"\(printable(property))\": using the identity")
            return (.identity, .identity)
        }
        for name in sysfsAttributes {
            guard let text = attribute(name) else { continue }
            if let matrix = parse(text) { return (matrix, .sysfs(name)) }
            warn("\(device): malformed \(name) \"\(printable(text))\": using the identity")
            return (.identity, .identity)
        }
        return (.identity, .identity)
    }
}

/// Text from a device or a file made safe for one log line, length bounded: control
/// characters, and those that move or hide what follows on a terminal (bidirectional
/// overrides, zero-width and other format characters, line and paragraph separators),
/// are escaped; other text, in any script, is kept.
func printable(_ text: some StringProtocol, limit: Int = 80) -> String {
    var result = ""
    for scalar in text.unicodeScalars.prefix(limit) {
        if isUnsafeOnATerminal(scalar) {
            result += scalar == "\n" ? "\\n" : "\\x" + String(scalar.value, radix: 16)
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    if text.unicodeScalars.count > limit { result += "…" }
    return result
}

/// Whether `printable` escapes a scalar.
func isUnsafeOnATerminal(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
    default: scalar == "\u{FFFD}"
    }
}
