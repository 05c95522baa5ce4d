import CLinux
import Glibc
import OrientationEngine
import Posix
import Udev

/// Opt-in laptop-mode suppression: while an evdev switch reports SW_TABLET_MODE = 0
/// (a convertible used as a laptop), samples are held back, so the orientation does
/// not change. The switch node is read event-driven; it costs no wake-ups while the
/// switch does not move.
public final class TabletModeSwitch {
    public static let evSw: UInt16 = 5
    public static let swTabletMode: UInt16 = 1

    public let name: String
    /// The event node, e.g. /dev/input/event5.
    public let devnode: String
    private let loop: EventLoop
    private let logger: Logger
    private let node: FileDescriptor
    /// The node hung up or failed: the switch was unplugged.
    public private(set) var isGone = false
    /// nil until the switch state is known (unknown counts as tablet mode).
    public private(set) var tabletMode: Bool?
    public var laptopMode: Bool { tabletMode == false }

    /// The first input device whose switch capabilities include SW_TABLET_MODE, or nil.
    /// Devices that `ignoring` names (by node) are passed over.
    public static func find(loop: EventLoop, logger: Logger, ignoring: Set<String> = []) -> TabletModeSwitch? {
        guard let context = UdevContext() else { return nil }
        for device in context.devices(subsystem: "input") {
            if let devnode = device.devnode, ignoring.contains(devnode) { continue }
            guard let devnode = device.devnode, devnode.hasPrefix("/dev/input/event"),
                  let parent = device.parent, parent.subsystem == "input",
                  let bitmap = SysfsFile.read(parent.syspath + "/capabilities/sw"),
                  hasTabletModeBit(bitmap) else { continue }
            let name = SysfsFile.read(parent.syspath + "/name") ?? device.sysname
            do {
                return try TabletModeSwitch(name: "\(printable(name, limit: 64)) (\(device.sysname))", devnode: devnode, loop: loop, logger: logger)
            } catch {
                logger.warning("\(name): cannot watch the tablet-mode switch: \(error)")
            }
        }
        return nil
    }

    /// Whether a `capabilities/sw` bitmap (hex words, most significant first) has the
    /// SW_TABLET_MODE bit.
    public static func hasTabletModeBit(_ bitmap: String) -> Bool {
        guard let last = bitmap.split(separator: " ").last, let word = UInt64(last, radix: 16) else { return false }
        return word & (1 << UInt64(swTabletMode)) != 0
    }

    init(name: String, devnode: String, loop: EventLoop, logger: Logger) throws(Errno) {
        self.name = name
        self.devnode = devnode
        self.loop = loop
        self.logger = logger
        node = try FileDescriptor.open(devnode, [.readOnly, .nonBlocking])
        var bits = [UInt8](repeating: 0, count: 8)
        let known = bits.withUnsafeMutableBytes { raw in
            (try? node.ioctl(UInt(clinux_eviocgsw(UInt32(raw.count))), raw.baseAddress!)) != nil
        }
        if known { tabletMode = bits[0] & (1 << UInt8(Self.swTabletMode)) != 0 }
        try loop.add(fd: node.rawValue, events: .readable) { [weak self] events in self?.readable(events) }
        logger.info("laptop-mode suppression: watching \(name), \(tabletMode.map { $0 ? "tablet mode" : "laptop mode" } ?? "state unknown")")
    }

    deinit { loop.remove(fd: node.rawValue) }

    private func readable(_ events: IOEvents) {
        let (end, _) = node.drain(chunkSize: EvdevFrameAssembler.eventSize * 32) { chunk in
            for event in EvdevFrameAssembler.events(in: chunk).events
            where event.type == Self.evSw && event.code == Self.swTabletMode {
                let tablet = event.value != 0
                if tablet != tabletMode { logger.debug("\(name): \(tablet ? "tablet" : "laptop") mode") }
                tabletMode = tablet
            }
            return true
        }
        guard end != .wouldBlock else { return }
        logger.warning("\(name): tablet-mode switch gone; orientation no longer suppressed")
        loop.remove(fd: node.rawValue)
        tabletMode = nil
        isGone = true
        onGone()
    }

    /// Called once when the node goes away.
    var onGone: () -> Void = {}
}

/// Laptop-mode suppression as configured: the tablet-mode switch in use, if any, followed
/// as switches come and go (convertible keyboards and docks are plugged in and out), so
/// that suppression starts and ends without a restart.
public final class LaptopModeGate {
    private let loop: EventLoop
    private let logger: Logger
    private var monitor: UdevMonitor?
    public private(set) var tabletSwitch: TabletModeSwitch?
    /// Called on the loop when a switch was picked up or let go.
    public var onChange: () -> Void = {}

    /// While true, samples are held back.
    public var laptopMode: Bool { tabletSwitch?.laptopMode ?? false }

    public init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
        if let context = UdevContext() {
            do {
                let monitor = try UdevMonitor(context: context, subsystems: ["input"])
                try loop.add(fd: monitor.descriptor, events: .readable) { [weak self] _ in self?.uevents() }
                self.monitor = monitor
            } catch {
                logger.warning("laptop-mode suppression: cannot watch udev events (\(error)): switches plugged in later will not be seen")
            }
        }
        pick()
        if tabletSwitch == nil { logger.info("laptop-mode suppression: no SW_TABLET_MODE switch found; watching for one") }
    }

    deinit {
        if let monitor { loop.remove(fd: monitor.descriptor) }
    }

    private func uevents() {
        var removed: Set<String> = []
        var any = false
        while let device = monitor?.receive() {
            any = true
            if device.action == "remove", let devnode = device.devnode { removed.insert(devnode) }
        }
        guard any else { return }
        if let current = tabletSwitch, removed.contains(current.devnode) { drop() }
        if tabletSwitch == nil, pick(ignoring: removed) { onChange() }
    }

    /// Takes the first switch found; whether one was.
    @discardableResult
    private func pick(ignoring: Set<String> = []) -> Bool {
        guard let found = TabletModeSwitch.find(loop: loop, logger: logger, ignoring: ignoring) else { return false }
        found.onGone = { [weak self, weak found] in
            guard let self, let found, self.tabletSwitch === found else { return }
            self.loop.post { [weak self] in self?.drop() }
        }
        tabletSwitch = found
        return true
    }

    private func drop() {
        guard let current = tabletSwitch else { return }
        if !current.isGone { logger.info("laptop-mode suppression: \(current.name) removed; orientation no longer suppressed") }
        tabletSwitch = nil
        onChange()
        if pick() { onChange() }
    }
}
