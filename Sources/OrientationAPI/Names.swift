/// The fixed names of the D-Bus contract (docs/api.md), in one place: the daemon, the
/// client library, orientationctl and the benchmarks all take them from here.
public enum OrientationAPI {
    /// The well-known bus name the daemon owns.
    /// The release: `--version` of both programs, and the package's.
    public static let version = "0.1.0"

    public static let busName = "org.orientationd.Orientation1"
    /// The manager object.
    public static let managerPath = "/org/orientationd/Orientation1"
    public static let managerInterface = "org.orientationd.Orientation1"
    /// Client objects: `clientPathPrefix` + a number that only grows.
    public static let clientInterface = "org.orientationd.Orientation1.Client"
    public static let clientPathPrefix = "/org/orientationd/Orientation1/Client/"

    /// The contract's own errors (the standard D-Bus ones are used besides).
    public enum Error {
        public static let limitExceeded = "org.orientationd.Orientation1.Error.LimitExceeded"
        public static let notAuthorized = "org.orientationd.Orientation1.Error.NotAuthorized"
    }

    /// The polkit actions the daemon asks about.
    public enum Action {
        /// Client.Start.
        public static let claim = "org.orientationd.Orientation1.claim"
        /// Setting RotationLocked.
        public static let lock = "org.orientationd.Orientation1.lock"
    }

    /// The standard interfaces the contract relies on.
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
}

/// The manager's properties, by their contract names (as power-profiles-daemon's
/// property mask: PropertiesChanged is emitted with these, never with string literals).
public enum ManagerProperty: String, CaseIterable, Sendable {
    case hasSensor = "HasSensor"
    case sensorName = "SensorName"
    case sensorBackend = "SensorBackend"
    case gyroscopeName = "GyroscopeName"
    case orientation = "Orientation"
    case tilt = "Tilt"
    case rotationLocked = "RotationLocked"
    case activeClients = "ActiveClients"
}

/// A client object's properties, by their contract names.
public enum ClientProperty: String, CaseIterable, Sendable {
    case active = "Active"
    case supportedOrientations = "SupportedOrientations"
    case preferredOrientation = "PreferredOrientation"
    case deviceOrientation = "DeviceOrientation"
    case interfaceOrientation = "InterfaceOrientation"
    case contentRotation = "ContentRotation"
}
