// The engine speaks the contract's vocabulary (Orientation, Tilt): re-exported, so that
// every user of the engine has the names without a second import.
import OrientationAPI

/// One accelerometer reading in m/s², in the Linux IIO frame (after scale and mount
/// matrix), with the time it was taken in milliseconds on a monotonic clock.
public struct Sample: Sendable, Equatable {
    public var timeMs: Int64
    public var x: Double
    public var y: Double
    public var z: Double

    public init(timeMs: Int64, x: Double, y: Double, z: Double) {
        self.timeMs = timeMs
        self.x = x
        self.y = y
        self.z = z
    }

    /// x² + y² + z²: the squared length of the reading (in the sample's unit).
    public var lengthSquared: Double { x * x + y * y + z * z }
}

/// One gyroscope reading: the angular rate in rad/s about the device's x, y and z axes
/// (Linux IIO frame, after scale and mount matrix, its bias included, as
/// `in_anglvel_*` reads), with its time in ms on the accelerometer's clock. A
/// world-fixed vector u seen in the device frame turns as du/dt = −ω × u.
public struct GyroscopeSample: Sendable, Equatable {
    public var timeMs: Int64
    public var x: Double
    public var y: Double
    public var z: Double

    public init(timeMs: Int64, x: Double, y: Double, z: Double) {
        self.timeMs = timeMs
        self.x = x
        self.y = y
        self.z = z
    }
}
