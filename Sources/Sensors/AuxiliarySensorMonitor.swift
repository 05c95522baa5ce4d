import Posix
import Udev

/// Finds iio-sensor-proxy's other sensors — ambient light, proximity, compass — through
/// udev and follows hotplug, one sensor per kind: the first device, in driver-table order
/// then by syspath, that opens. A sensor in use stays in use while its device is there
/// (as iio-sensor-proxy keeps the first it found); when it goes, the next is looked for.
/// An unusable device is said once, in one warning, until it is plugged in again.
public final class AuxiliarySensorMonitor {
    private let loop: EventLoop
    private let logger: Logger
    private let context: UdevContext
    private var monitor: UdevMonitor?
    private var removed: Set<String> = []
    /// "syspath#kind" of the unusable devices already said.
    private var warned: Set<String> = []
    public private(set) var current: [AuxiliaryKind: AuxiliarySensor] = [:]
    /// The sensor of a kind changed (nil: there is none now).
    public var onChange: (AuxiliaryKind, AuxiliarySensor?) -> Void = { _, _ in }

    public init?(loop: EventLoop, logger: Logger) {
        guard let context = UdevContext() else { return nil }
        self.loop = loop
        self.logger = logger
        self.context = context
    }

    deinit {
        if let monitor { loop.remove(fd: monitor.descriptor) }
    }

    /// Starts watching uevents and finds the sensors present now (`current`; `onChange`
    /// is not called for them).
    public func start() {
        do {
            let monitor = try UdevMonitor(context: context, subsystems: AuxiliaryDriver.subsystems)
            try loop.add(fd: monitor.descriptor, events: .readable) { [weak self] _ in self?.uevents() }
            self.monitor = monitor
        } catch {
            logger.warning("cannot watch udev events for light, proximity and compass (\(error)): sensors plugged in later will not be seen")
        }
        select(announce: false)
    }

    /// The sensor of `kind` went away under its reader (its node closed): it is dropped
    /// and another looked for.
    public func vanished(_ kind: AuxiliaryKind) {
        guard let sensor = current[kind] else { return }
        removed.insert(sensor.syspath)
        select(announce: true)
    }

    private func uevents() {
        var any = false
        while let device = monitor?.receive() {
            any = true
            if device.action == "remove" {
                removed.insert(device.syspath)
                warned = warned.filter { !$0.hasPrefix(device.syspath + "#") }
            } else {
                removed.remove(device.syspath)
                if device.action == "add" { warned = warned.filter { !$0.hasPrefix(device.syspath + "#") } }
            }
        }
        if any { select(announce: true) }
    }

    private func select(announce: Bool) {
        var present: [String: [AuxiliaryDevice]] = [:]
        for subsystem in AuxiliaryDriver.subsystems {
            present[subsystem] = context.devices(subsystem: subsystem)
                .filter { !removed.contains($0.syspath) }
                .map { device in
                    AuxiliaryDevice(syspath: device.syspath, sysname: device.sysname, subsystem: subsystem, devnode: device.devnode,
                                    properties: device.properties, parentSyspath: device.parent?.syspath)
                }
                .sorted { $0.syspath < $1.syspath }
        }
        for kind in AuxiliaryKind.allCases {
            if let sensor = current[kind], present.values.contains(where: { $0.contains { $0.syspath == sensor.syspath } }) { continue }
            let found = find(kind, in: present)
            guard found != nil || current[kind] != nil else { continue }
            current[kind] = found
            logger.info(found.map { "\(kind.rawValue): using \($0.identity.name) (\($0.identity.backend))" } ?? "\(kind.rawValue): none")
            if announce { onChange(kind, found) }
        }
    }

    private func find(_ kind: AuxiliaryKind, in present: [String: [AuxiliaryDevice]]) -> AuxiliarySensor? {
        for driver in AuxiliaryDriver.table where driver.kind == kind {
            for device in present[driver.subsystem] ?? [] {
                switch driver.open(device, loop) {
                case .success(let sensor)?: return sensor
                case .failure(let error)?:
                    if warned.insert(device.syspath + "#" + kind.rawValue).inserted {
                        logger.warning("\(error.message); \(kind.rawValue) sensor not used")
                    }
                case nil: continue
                }
            }
        }
        return nil
    }
}
