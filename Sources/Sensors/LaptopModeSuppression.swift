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
    private let loop: EventLoop
    private let logger: Logger
    private let node: FileDescriptor
    /// nil until the switch state is known (unknown counts as tablet mode).
    public private(set) var tabletMode: Bool?
    public var laptopMode: Bool { tabletMode == false }

    /// The first input device whose switch capabilities include SW_TABLET_MODE, or nil.
    public static func find(loop: EventLoop, logger: Logger) -> TabletModeSwitch? {
        guard let context = UdevContext() else { return nil }
        for device in context.devices(subsystem: "input") {
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
            for (type, code, value) in EvdevFrameAssembler.events(in: chunk).events
            where type == Self.evSw && code == Self.swTabletMode {
                let tablet = value != 0
                if tablet != tabletMode { logger.debug("\(name): \(tablet ? "tablet" : "laptop") mode") }
                tabletMode = tablet
            }
            return true
        }
        guard end != .wouldBlock else { return }
        logger.warning("\(name): tablet-mode switch gone; orientation no longer suppressed")
        loop.remove(fd: node.rawValue)
        tabletMode = nil
    }
}

/// A sensor whose samples are held back while the switch says laptop mode.
public final class SuppressibleSensor: SensorBackend {
    public let inner: SensorBackend
    private let tabletSwitch: TabletModeSwitch

    public init(_ inner: SensorBackend, tabletSwitch: TabletModeSwitch) {
        self.inner = inner
        self.tabletSwitch = tabletSwitch
    }

    public var name: String { inner.name }
    public var kind: String { inner.kind }

    public func start(handler: @escaping (Sample) -> Void) throws(SensorError) {
        let tabletSwitch = self.tabletSwitch
        try inner.start { sample in
            if !tabletSwitch.laptopMode { handler(sample) }
        }
    }

    public func stop() { inner.stop() }

    public func currentSample() -> Sample? { tabletSwitch.laptopMode ? nil : inner.currentSample() }
}
