import OrientationEngine
import OrientationAPI

/// The interface-orientation rules of the API contract, as pure functions: the iOS
/// model of `supportedInterfaceOrientations`, without any D-Bus in it.
///
/// 1. When a client is created, started, or its supported set changes: the device
///    orientation if it is defined and supported; else the current interface
///    orientation if still supported; else the preferred orientation.
/// 2. When the device orientation changes to a defined, supported D: D; otherwise the
///    interface orientation stays.
/// 3. When the device orientation becomes undefined, the interface orientation stays.
/// 4. ContentRotation = (angle(device) − angle(interface)) mod 360, 0 while the device
///    orientation is undefined.
public enum InterfacePolicy {
    /// Rule 1.
    public static func reevaluated(device: Orientation, current: Orientation, supported: [Orientation], preferred: Orientation) -> Orientation {
        if device != .undefined, supported.contains(device) { return device }
        if current != .undefined, supported.contains(current) { return current }
        return preferred
    }

    /// Rules 2 and 3.
    public static func afterDeviceChange(to device: Orientation, current: Orientation, supported: [Orientation]) -> Orientation {
        if device != .undefined, supported.contains(device) { return device }
        return current
    }

    /// Rule 4.
    public static func contentRotation(device: Orientation, interface: Orientation) -> UInt32 {
        guard let d = device.angle, let i = interface.angle else { return 0 }
        return UInt32(((d - i) % 360 + 360) % 360)
    }

    /// The contract's default preference: the first supported orientation in the order
    /// normal, left-up, bottom-up, right-up.
    public static func defaultPreferred(for supported: [Orientation]) -> Orientation {
        Orientation.defined.first { supported.contains($0) } ?? .normal
    }
}
