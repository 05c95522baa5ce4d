import OrientationEngine
import OrientationAPI

/// What the service core asks the bus adapter to send, in the order to send it.
public enum Emission: Equatable, Sendable {
    /// The manager's OrientationWillChange(from, to), broadcast.
    case managerWillChange(from: Orientation, to: Orientation)
    /// The manager's PropertiesChanged for `names`, broadcast; `state` is the manager as
    /// it was when it was said.
    case managerChanged([ManagerProperty], ManagerState)
    /// A client's OrientationWillChange, to its owner only.
    case clientWillChange(ClientAddress, from: Orientation, to: Orientation, contentRotation: UInt32)
    /// A client's PropertiesChanged for `names`, to its owner only; `values` is the
    /// client as it was then.
    case clientChanged(ClientAddress, [ClientProperty], ClientRecord)
    /// net.hadess.SensorProxy's PropertiesChanged: to one claimer, or broadcast (nil:
    /// availability, so that apps can wait for a sensor before claiming it).
    case compatChanged([CompatProperty], destination: String?)
    /// Something to log once, as a warning (a sensor that cannot start, a wrong scale).
    case warning(String)
}

/// Where a client's signals go.
public struct ClientAddress: Equatable, Hashable, Sendable {
    public var path: String
    public var owner: String
}

/// The properties of net.hadess.SensorProxy that change.
public enum CompatProperty: String, CaseIterable, Sendable {
    case hasAccelerometer = "HasAccelerometer"
    case accelerometerOrientation = "AccelerometerOrientation"
    case accelerometerTilt = "AccelerometerTilt"
}
