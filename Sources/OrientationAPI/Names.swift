/// The fixed names of the D-Bus contract (docs/api.md), in one place: the daemon, the
/// client library, orientationctl and the benchmarks all take them from here.
public enum OrientationAPI {
    /// The release: `--version` of both programs, and the package's.
    public static let version = "0.1.0"

    /// The well-known bus name the daemon owns.
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
    /// Its change signal, which carries every property change of the contract.
    public static let propertiesChanged = "PropertiesChanged"

    /// The message bus itself, as clients follow the daemon on it.
    public enum MessageBus {
        /// The bus's own name and interface (both org.freedesktop.DBus).
        public static let name = "org.freedesktop.DBus"
        public static let interface = "org.freedesktop.DBus"
        /// The signal that tells a name's owner changed (the daemon came or went).
        public static let nameOwnerChanged = "NameOwnerChanged"
        /// The errors that say nobody owns the name called (the daemon is not running).
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}

/// The manager's properties, by their contract names (as power-profiles-daemon's
/// property mask: PropertiesChanged is emitted with these, never with string literals).
public enum ManagerProperty: String, CaseIterable, Sendable {
    case hasSensor = "HasSensor"
    case sensorName = "SensorName"
    case sensorBackend = "SensorBackend"
    case sensorDevice = "SensorDevice"
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
