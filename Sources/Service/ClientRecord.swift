import OrientationEngine
import OrientationAPI

/// One app's view of the device orientation, as the service core keeps it: what it
/// supports, whether it wants readings, and the interface orientation and content
/// rotation that follow.
public struct ClientRecord: Equatable, Sendable {
    public let id: UInt64
    public let path: String
    /// Unique bus name of the owning connection: the only one allowed to call methods,
    /// and the only recipient of this client's signals.
    public let owner: String
    public var options: ClientOptions
    public var active = false
    public var device: Orientation
    public var interface: Orientation

    init(id: UInt64, owner: String, options: ClientOptions, device: Orientation) {
        self.id = id
        path = OrientationAPI.clientPathPrefix + String(id)
        self.owner = owner
        self.options = options
        self.device = device
        interface = InterfacePolicy.reevaluated(device: device, current: .undefined,
                                                supported: options.supported, preferred: options.preferred)
    }

    public var address: ClientAddress { ClientAddress(path: path, owner: owner) }
    public var contentRotation: UInt32 { InterfacePolicy.contentRotation(device: device, interface: interface) }

    /// What a move changes: the will-change to announce, and the properties whose values
    /// differ, in declaration order.
    struct Change {
        var willChange: (from: Orientation, to: Orientation, contentRotation: UInt32)?
        var properties: [ClientProperty]
    }

    /// Moves to `device`/`interface` and says what must be announced.
    mutating func move(device newDevice: Orientation, interface newInterface: Orientation) -> Change {
        let oldContent = contentRotation
        let newContent = InterfacePolicy.contentRotation(device: newDevice, interface: newInterface)
        var change = Change(willChange: nil, properties: [])
        if newInterface != interface || newContent != oldContent {
            change.willChange = (interface, newInterface, newContent)
        }
        if newDevice != device { change.properties.append(.deviceOrientation) }
        if newInterface != interface { change.properties.append(.interfaceOrientation) }
        if newContent != oldContent { change.properties.append(.contentRotation) }
        device = newDevice
        interface = newInterface
        return change
    }
}
