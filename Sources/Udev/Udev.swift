import CUdev
import Posix

/// A libudev context (`struct udev`). Devices, enumerations and monitors made from it
/// keep it alive.
public final class UdevContext {
    let handle: OpaquePointer

    /// Creates a context; nil when libudev cannot (out of memory).
    public init?() {
        guard let handle = udev_new() else { return nil }
        self.handle = handle
    }

    deinit { udev_unref(handle) }

    /// Every device of `subsystem` present now, in libudev's order (by syspath).
    public func devices(subsystem: String) -> [UdevDevice] {
        guard let enumerate = udev_enumerate_new(handle) else { return [] }
        defer { udev_enumerate_unref(enumerate) }
        guard udev_enumerate_add_match_subsystem(enumerate, subsystem) >= 0,
              udev_enumerate_scan_devices(enumerate) >= 0 else { return [] }
        var result: [UdevDevice] = []
        // udev_list_entry_foreach is a macro: walk the list by hand.
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            // A device that went between the scan and now is simply not listed.
            if let name = udev_list_entry_get_name(current), let raw = udev_device_new_from_syspath(handle, name) {
                result.append(UdevDevice(owning: raw, context: self))
            }
            entry = udev_list_entry_get_next(current)
        }
        return result
    }
}

/// One `struct udev_device`, owned (unreferenced when released).
///
/// libudev caches attribute values per device object: read attributes that change
/// (raw readings) from their files instead, and get a new device object to see new
/// properties after a `change` uevent.
public final class UdevDevice {
    let handle: OpaquePointer
    private let context: UdevContext

    init(owning handle: OpaquePointer, context: UdevContext) {
        self.handle = handle
        self.context = context
    }

    deinit { udev_device_unref(handle) }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    public var syspath: String { Self.string(udev_device_get_syspath(handle)) ?? "" }
    public var sysname: String { Self.string(udev_device_get_sysname(handle)) ?? "" }
    public var subsystem: String? { Self.string(udev_device_get_subsystem(handle)) }
    /// The /dev node, if the device has one.
    public var devnode: String? { Self.string(udev_device_get_devnode(handle)) }
    /// The uevent action ("add", "remove", "change", ...) for a device from a monitor.
    public var action: String? { Self.string(udev_device_get_action(handle)) }

    /// Every udev property (KEY=value) of the device.
    public var properties: [String: String] {
        var result: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(handle)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                result[String(cString: name)] = Self.string(udev_list_entry_get_value(current)) ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        return result
    }

    public var parent: UdevDevice? {
        guard let raw = udev_device_get_parent(handle), let owned = udev_device_ref(raw) else { return nil }
        return UdevDevice(owning: owned, context: context)
    }
}

/// A udev monitor (`udev_monitor` on the "udev" netlink group) filtered by subsystem.
/// Its descriptor goes into the event loop; `receive()` returns one device per event.
public final class UdevMonitor {
    private let handle: OpaquePointer
    private let context: UdevContext
    /// The descriptor to watch for readability (owned by the monitor).
    public let descriptor: Int32

    public init(context: UdevContext, subsystems: [String]) throws(Errno) {
        guard let handle = udev_monitor_new_from_netlink(context.handle, "udev") else { throw Errno.current }
        self.handle = handle
        self.context = context
        for subsystem in subsystems {
            _ = udev_monitor_filter_add_match_subsystem_devtype(handle, subsystem, nil)
        }
        let rc = udev_monitor_enable_receiving(handle)
        if rc < 0 {
            let error = Errno(rawValue: -rc)
            udev_monitor_unref(handle)
            throw error
        }
        descriptor = udev_monitor_get_fd(handle)
        // libudev's socket is already non-blocking and close-on-exec.
    }

    deinit { udev_monitor_unref(handle) }

    /// The next device event, or nil when none is pending.
    public func receive() -> UdevDevice? {
        guard let raw = udev_monitor_receive_device(handle) else { return nil }
        return UdevDevice(owning: raw, context: context)
    }
}
