import CLinux
import Glibc
import Posix

/// A proximity switch on an input device (iio-sensor-proxy's `input-proximity`): an
/// event node whose input device reports SW_FRONT_PROXIMITY. The switch's state at
/// start comes from EVIOCGSW; each EV_SW event for it after that is a reading.
final class EvdevProximitySensor: AuxiliarySensor {
    static let backend = BackendKind(rawValue: "input-proximity")
    static let evSw: UInt16 = 5
    static let swFrontProximity: UInt16 = 0x0b

    let kind = AuxiliaryKind.proximity
    let identity: SensorIdentity
    let syspath: String
    private let node: DeviceNode
    private var onReading: ((AuxiliaryReading) -> Void)?
    private var onProblem: ((SensorError) -> Void)?

    static let driver = AuxiliaryDriver(kind: .proximity, backend: backend, subsystem: "input") { device, loop in
        guard let devnode = device.devnode, devnode.hasPrefix("/dev/input/event"), let parent = device.parentSyspath,
              let bitmap = SysfsFile.read(parent + "/capabilities/sw"), hasSwitch(bitmap, swFrontProximity) else { return nil }
        return .success(EvdevProximitySensor(device: device, devnode: devnode, loop: loop))
    }

    /// Whether bit `code` is set in a sysfs capability bitmap: hexadecimal words, most
    /// significant first, each as wide as a long.
    static func hasSwitch(_ bitmap: String, _ code: UInt16) -> Bool {
        let words = bitmap.split(separator: " ").reversed().map { UInt64($0, radix: 16) }
        let bitsPerWord = MemoryLayout<Int>.size * 8
        let index = Int(code) / bitsPerWord
        guard index < words.count, let word = words[index] else { return false }
        return word & (1 << UInt64(Int(code) % bitsPerWord)) != 0
    }

    init(device: AuxiliaryDevice, devnode: String, loop: EventLoop) {
        identity = device.identity(Self.backend)
        syspath = device.syspath
        node = DeviceNode(path: devnode, loop: loop, chunkSize: EvdevFrameAssembler.eventSize * 64)
    }

    func start(reading: @escaping (AuxiliaryReading) -> Void, problem: @escaping (SensorError) -> Void,
               vanished: @escaping (String) -> Void) throws(SensorError) {
        onReading = reading
        onProblem = problem
        guard !node.isOpen else { return }
        do {
            try node.open(chunk: { [weak self] chunk in self?.events(chunk) }, end: { why in vanished(why) })
        } catch {
            throw SensorError("\(identity.name): cannot open \(node.path): \(error)")
        }
        // The switch's state now (one long covers every switch: SW_MAX is 0x10).
        var bits = [UInt8](repeating: 0, count: 8)
        if let fd = node.descriptor {
            let ok = bits.withUnsafeMutableBytes { raw in
                (try? fd.ioctl(UInt(clinux_eviocgsw(UInt32(raw.count))), raw.baseAddress!)) != nil
            }
            if ok {
                reading(.proximity(near: bits[Int(Self.swFrontProximity) / 8] & (1 << (Self.swFrontProximity % 8)) != 0))
            } else {
                problem(SensorError("\(identity.name): EVIOCGSW failed: the switch's state is known at its next change"))
            }
        }
        node.drain()
    }

    func stop() {
        onReading = nil
        onProblem = nil
        node.close()
    }

    private func events(_ chunk: ArraySlice<UInt8>) {
        let (events, leftover) = EvdevFrameAssembler.events(in: chunk)
        if leftover != 0 { onProblem?(SensorError("\(identity.name): \(leftover) trailing bytes do not make an input event: dropped")) }
        for event in events where event.type == Self.evSw && event.code == Self.swFrontProximity {
            onReading?(.proximity(near: event.value != 0))
        }
    }
}
