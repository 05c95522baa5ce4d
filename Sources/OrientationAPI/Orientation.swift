/// The four ways a screen can be held, plus `undefined` (no reading yet, or no sensor).
///
/// The raw values are the strings of the D-Bus contract (iio-sensor-proxy's names).
public enum Orientation: String, Sendable, CaseIterable, Hashable {
    case undefined
    case normal
    case leftUp = "left-up"
    case bottomUp = "bottom-up"
    case rightUp = "right-up"

    /// The four defined orientations, in the contract's default-preference order.
    public static let defined: [Orientation] = [.normal, .leftUp, .bottomUp, .rightUp]

    /// Degrees counter-clockwise a compositor rotates the content for this orientation;
    /// nil for `undefined`.
    public var angle: Int? {
        switch self {
        case .undefined: nil
        case .normal: 0
        case .leftUp: 90
        case .bottomUp: 180
        case .rightUp: 270
        }
    }
}

/// How far the screen normal is raised above (or lowered below) the horizon.
public enum Tilt: String, Sendable, CaseIterable, Hashable {
    case undefined
    case vertical
    case tiltedUp = "tilted-up"
    case tiltedDown = "tilted-down"
    case faceUp = "face-up"
    case faceDown = "face-down"
}
