import Posix

/// An IIO buffer's trigger. A device that has a trigger but none selected is given its
/// own ("<name>-dev<N>", as the kernel names a device's data-ready trigger); buffers
/// without triggers work too.
enum IIOTrigger {
    static let triggers = "/sys/bus/iio/devices"

    /// Selects the device's own trigger when none is; a note when there is none to
    /// select, a failure when selecting it failed.
    static func selectOwn(syspath: String, deviceName: String?, sysname: String) -> Result<String?, SensorError> {
        guard SysfsFile.exists(syspath + "/trigger/current_trigger"),
              (SysfsFile.read(syspath + "/trigger/current_trigger") ?? "").isEmpty else { return .success(nil) }
        let wanted = "\(deviceName ?? "")-dev\(sysname.drop { !$0.isNumber })"
        guard SysfsFile.list(triggers).contains(where: { $0.hasPrefix("trigger") && SysfsFile.read(triggers + "/" + $0 + "/name") == wanted }) else {
            return .success("no trigger named \(wanted): using the buffer without one")
        }
        if case .failure(let error) = SysfsFile.write(syspath + "/trigger/current_trigger", wanted) {
            return .failure(SensorError("cannot select trigger \(wanted): \(error)"))
        }
        return .success(nil)
    }
}
