import Posix
import Udev

/// Finds the best display accelerometer through udev and follows hotplug: a udev
/// monitor's descriptor sits on the event loop, and every add, remove or change of an
/// IIO or input device re-evaluates the choice. `onChange` gets the new backend (nil:
/// no sensor) whenever the sensor in use changes or must be reopened (a `change`
/// uevent, so that a fixed mount matrix applies without a restart).
public final class SensorMonitor {
    private let loop: EventLoop
    private let logger: Logger
    private let context: UdevContext
    private var monitor: UdevMonitor?
    /// Settings for a device (poll interval, mount matrix override from the
    /// configuration); replaced on reload.
    public var settings: (DeviceDescription) -> SensorSettings
    public var onChange: ((SensorBackend?) -> Void)?

    public private(set) var current: SensorBackend?
    public private(set) var currentCandidate: SensorCandidate?
    /// Choices that failed at run time (device vanished, buffer unusable), until the
    /// device is added or changed again.
    private var failedKeys: Set<String> = []
    /// Devices a `remove` uevent announced, until they are added again (their sysfs
    /// directory may outlive the event for a moment).
    private var removed: Set<String> = []
    /// What was already said about a device ("syspath#message"): a base accelerometer or
    /// an unusable device is logged once when it appears, not again at every uevent.
    private var reported: Set<String> = []

    public init?(loop: EventLoop, logger: Logger, settings: @escaping (DeviceDescription) -> SensorSettings) {
        guard let context = UdevContext() else { return nil }
        self.loop = loop
        self.logger = logger
        self.context = context
        self.settings = settings
    }

    deinit {
        if let monitor { loop.remove(fd: monitor.descriptor) }
    }

    /// Starts watching uevents and picks the initial sensor (returned, and also
    /// `current`). `onChange` is not called for this first choice.
    public func start() -> SensorBackend? {
        do {
            let monitor = try UdevMonitor(context: context, subsystems: UdevDiscovery.subsystems)
            try loop.add(fd: monitor.descriptor, events: .readable) { [weak self] _ in self?.uevents() }
            self.monitor = monitor
        } catch {
            logger.warning("cannot watch udev events (\(error)): sensors plugged in later will not be seen")
        }
        select(reopen: false, announce: false)
        return current
    }

    /// Reopens the sensor in use with fresh settings (configuration reload).
    public func reload() {
        select(reopen: true, announce: true)
    }

    private func uevents() {
        var touched: Set<String> = []
        var reopenCurrent = false
        while let device = monitor?.receive() {
            let syspath = device.syspath
            let action = device.action ?? "change"
            logger.debug("uevent \(action) \(syspath)")
            switch action {
            case "remove":
                removed.insert(syspath)
                // Said again if the device comes back.
                reported = reported.filter { !$0.hasPrefix(syspath + "#") }
            case "add", "change", "bind", "online":
                removed.remove(syspath)
                failedKeys = failedKeys.filter { !$0.hasPrefix(syspath + "#") }
                if action == "change", currentCandidate?.device.syspath == syspath { reopenCurrent = true }
                // A gyroscope that comes after the accelerometer (a HID sensor hub's
                // collections appear one by one): the accelerometer in use is reopened,
                // and pairs with it if it is its own.
                if action == "add", currentCandidate?.device.syspath != syspath, current?.gyroscopeName == nil,
                   SysfsFile.exists(syspath + "/in_anglvel_x_raw") {
                    reopenCurrent = true
                }
            default:
                break
            }
            touched.insert(syspath)
        }
        guard !touched.isEmpty else { return }
        select(reopen: reopenCurrent, announce: true)
    }

    /// Logs `message` about the device at `syspath` unless it was already logged.
    private func once(_ syspath: String, _ message: String, _ log: (String) -> Void) {
        guard reported.insert(syspath + "#" + message).inserted else { return }
        log(message)
    }

    private func failed(_ candidate: SensorCandidate, _ why: String) {
        guard currentCandidate?.key == candidate.key else { return }
        failedKeys.insert(candidate.key)
        logger.info("\(candidate.device.displayName) (\(candidate.kind.rawValue)): \(why): choosing again")
        select(reopen: false, announce: true)
    }

    /// Candidates best first: devices by their best kind, each device's kinds together
    /// (so a broken buffer falls back to polling the same device first).
    private func rankedCandidates() -> [SensorCandidate] {
        let all = UdevDiscovery.candidates(context: context) { device, reason in
            guard !removed.contains(device.syspath) else { return }
            once(device.syspath, "\(device.displayName): skipped: \(reason)") { logger.info($0) }
        }.filter { !removed.contains($0.device.syspath) }
        var bestRank: [String: SensorKind] = [:]
        for candidate in all {
            bestRank[candidate.device.syspath] = min(bestRank[candidate.device.syspath] ?? candidate.kind, candidate.kind)
        }
        return all.sorted { a, b in
            let ra = bestRank[a.device.syspath]!, rb = bestRank[b.device.syspath]!
            if ra != rb { return ra < rb }
            if a.device.syspath != b.device.syspath { return a.device.syspath < b.device.syspath }
            return a.kind < b.kind
        }.filter { !failedKeys.contains($0.key) }
    }

    private func select(reopen: Bool, announce: Bool) {
        let candidates = rankedCandidates()
        if !reopen, let currentCandidate, let first = candidates.first, first.key == currentCandidate.key { return }
        if let currentCandidate, reopen || candidates.first?.key != currentCandidate.key {
            logger.debug("releasing \(currentCandidate.device.displayName) (\(currentCandidate.kind.rawValue))")
        }
        var chosen: (SensorBackend, SensorCandidate)?
        for candidate in candidates {
            guard let driver = SensorDriver.driver(for: candidate.kind) else { continue }
            // The backend being replaced lets go of the device first (a buffer can
            // only be set up while disabled).
            if let current, currentCandidate?.device.syspath == candidate.device.syspath {
                current.stop()
            }
            let environment = SensorEnvironment(loop: loop, logger: logger, settings: settings(candidate.device),
                                                failed: { [weak self] why in self?.failed(candidate, why) })
            do {
                let backend = try driver.open(candidate.device, environment)
                chosen = (backend, candidate)
                break
            } catch {
                let syspath = candidate.device.syspath
                if candidate.kind == .iioBuffer {
                    once(syspath, "\(error.message): cannot use the buffer, falling back to polling if the device allows it") { logger.warning($0) }
                } else {
                    once(syspath, "\(error.message): \(candidate.kind.rawValue) not used") { logger.warning($0) }
                }
            }
        }
        let previous = currentCandidate
        current = chosen?.0
        currentCandidate = chosen?.1
        if let chosen {
            if previous?.key != chosen.1.key || reopen {
                logger.info("using \(chosen.0.name) (\(chosen.0.kind.rawValue))")
            }
        } else if previous != nil {
            logger.info("no display accelerometer left")
        }
        if announce { onChange?(current) }
    }
}
