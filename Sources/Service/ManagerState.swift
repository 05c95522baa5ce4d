import DBus
import OrientationAPI

/// The manager's properties: one value of this struct is everything
/// org.orientationd.Orientation1 says. The core keeps one and changes it only through
/// `ServiceCore.update`, which compares the old value with the new one to know which
/// PropertiesChanged to send; the interface table reads its getters from it. A new
/// property is a case of `ManagerProperty` (the contract), a field here with its value
/// in `subscript`, and its entry in the table.
public struct ManagerState: Equatable, Sendable {
    public var hasSensor = false
    public var sensorName = ""
    public var sensorBackend = ""
    public var sensorDevice = ""
    public var gyroscopeName = ""
    public var orientation: Orientation = .undefined
    public var tilt: Tilt = .undefined
    public var rotationLocked = false
    public var activeClients = 0

    public init() {}

    /// Each property's value as the bus carries it: the one place it is made.
    public subscript(property: ManagerProperty) -> Value {
        switch property {
        case .hasSensor: .bool(hasSensor)
        case .sensorName: .string(sensorName)
        case .sensorBackend: .string(sensorBackend)
        case .sensorDevice: .string(sensorDevice)
        case .gyroscopeName: .string(gyroscopeName)
        case .orientation: .string(orientation.rawValue)
        case .tilt: .string(tilt.rawValue)
        case .rotationLocked: .bool(rotationLocked)
        case .activeClients: .uint32(UInt32(clamping: activeClients))
        }
    }

    /// The properties whose values differ from `old`'s, in the contract's order.
    public func changes(since old: ManagerState) -> [ManagerProperty] {
        ManagerProperty.allCases.filter { self[$0] != old[$0] }
    }
}
