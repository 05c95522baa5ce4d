import DBus
import Foundation
import Glibc
import TestSupport

/// A private bus with orientationd on it, fed through a replay FIFO the test writes to.
final class DaemonFixture {
    let bus: TestBus
    let daemon: ChildProcess
    let fifoPath: String
    private let fifo: FileHandle
    /// Trace time of the next sample the fixture writes.
    private(set) var traceTimeMs = 0

    init(extraArguments: [String] = []) throws {
        bus = try TestBus()
        fifoPath = bus.directory + "/samples.fifo"
        guard mkfifo(fifoPath, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
        // Read-write so that opening never blocks, whoever opens first.
        let fd = open(fifoPath, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw TestFailure("cannot open the FIFO") }
        fifo = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        daemon = try ChildProcess(product: "orientationd",
                                  arguments: ["--address", bus.address, "--sensor", "replay:" + fifoPath, "--verbose"] + extraArguments,
                                  directory: bus.directory)
    }

    /// Where most tests start: a daemon whose replayed device has been upright for
    /// `holdMs` (read to the end), its name owned, and a peer on its bus.
    static func upright(extraArguments: [String] = [], holdMs: Int = 300) throws -> (DaemonFixture, Peer) {
        let fixture = try DaemonFixture(extraArguments: extraArguments)
        let peer = try fixture.peer()
        fixture.hold(.normal, durationMs: holdMs)
        guard fixture.drained() else { throw TestFailure("the daemon did not read its samples:\n\(fixture.daemon.stderr)") }
        return (fixture, peer)
    }

    /// A peer on the fixture's bus, once the daemon owns its name.
    func peer(watchManager: Bool = true) throws -> Peer {
        let peer = try Peer(bus: bus, watchManager: watchManager)
        guard peer.waitForService() else { throw TestFailure("orientationd did not take its name; stderr:\n\(daemon.stderr)") }
        return peer
    }

    /// Writes raw text to the FIFO.
    func write(_ text: String) { fifo.write(Data(text.utf8)) }

    /// Waits until the daemon has read everything written to the FIFO (the bytes still
    /// in the pipe, as FIONREAD counts them, drop to zero). The daemon handles what it
    /// read before it looks at the bus again, so a call made afterwards sees it.
    func drained(seconds: Double = 10) -> Bool {
        waitUntil(seconds: seconds) {
            var pending: Int32 = 0
            return ioctl(fifo.fileDescriptor, UInt(FIONREAD), &pending) == 0 && pending == 0
        }
    }

    /// Writes `durationMs` of samples at `rateHz` of a device at rest in `pose`.
    func hold(_ pose: Pose, durationMs: Int, rateHz: Int = 50) {
        let step = 1000 / rateHz
        var text = ""
        var elapsed = 0
        while elapsed < durationMs {
            text += "\(traceTimeMs),\(pose.x),\(pose.y),\(pose.z)\n"
            traceTimeMs += step
            elapsed += step
        }
        write(text)
    }

    /// Rest readings of the traces' frame.
    struct Pose {
        var x: Double, y: Double, z: Double
        static let normal = Pose(x: 0, y: -9.81, z: 0)
        static let bottomUp = Pose(x: 0, y: 9.81, z: 0)
        static let leftUp = Pose(x: 9.81, y: 0, z: 0)
        static let rightUp = Pose(x: -9.81, y: 0, z: 0)
        static let faceUp = Pose(x: 0, y: 0, z: 9.81)
    }

    static func pose(of orientation: String) -> Pose {
        switch orientation {
        case "bottom-up": .bottomUp
        case "left-up": .leftUp
        case "right-up": .rightUp
        default: .normal
        }
    }
}
