import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// RotationLocked survives a restart where systemd gives the daemon a state directory
/// (STATE_DIRECTORY, from the unit's StateDirectory=), as a user who locked the rotation
/// expects through an upgrade, a crash or a reboot; and without one it does not.
@Suite struct LockPersistenceTests {
    /// A daemon on `bus` replaying a device held upright (or, `leftUp`, turned left-up),
    /// with `stateDirectory` if given; a peer once it serves.
    func start(_ bus: TestBus, stateDirectory: String?, leftUp: Bool = false) throws -> (ChildProcess, Peer) {
        let trace = bus.directory + (leftUp ? "/left-up.csv" : "/upright.csv")
        let reading = leftUp ? "9.81,0,0" : "0,-9.81,0"
        try "0,\(reading)\n100,\(reading)\n".write(toFile: trace, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["STATE_DIRECTORY"] = stateDirectory
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + trace],
                                      directory: bus.directory, environment: environment)
        let peer = try Peer(bus: bus)
        guard peer.waitForService() else { throw TestFailure("orientationd did not take its name:\n\(daemon.stderr)") }
        return (daemon, peer)
    }

    func stop(_ daemon: ChildProcess) {
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    func lock(_ peer: Peer, _ locked: Bool) throws {
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(locked))
    }

    /// An empty state directory in the bus's directory.
    func makeStateDirectory(_ bus: TestBus) throws -> String {
        let state = bus.directory + "/state-dir"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        return state
    }

    /// Locks the rotation through `peer`, stops `daemon` and starts another: whether it
    /// comes back locked.
    func lockedAfterARestart(_ bus: TestBus, _ daemon: ChildProcess, _ peer: Peer, stateDirectory: String?) throws -> Bool {
        try lock(peer, true)
        stop(daemon)
        let (again, peer) = try start(bus, stateDirectory: stateDirectory)
        defer { stop(again) }
        return try peer.managerProperty("RotationLocked") == .bool(true)
    }

    /// Locked in left-up, restarted lying upright: still locked, and in left-up, for the
    /// manager and for an app's client; unlocked, the device's own orientation; restarted
    /// again, unlocked.
    @Test func theLockSurvivesARestart() throws {
        let bus = try TestBus()
        let state = try makeStateDirectory(bus)
        var (daemon, peer) = try start(bus, stateDirectory: state, leftUp: true)
        #expect(try peer.managerProperty("RotationLocked") == .bool(false))
        try peer.call(try peer.createClient(), Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(daemon.stderr)")
        try lock(peer, true)
        stop(daemon)
        (daemon, peer) = try start(bus, stateDirectory: state)
        #expect(try peer.managerProperty("RotationLocked") == .bool(true), "stderr:\n\(daemon.stderr)")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"), "stderr:\n\(daemon.stderr)")
        #expect(daemon.stderr.contains("rotation locked in left-up, as it was when the daemon last stopped"), "\(daemon.stderr)")
        let client = try peer.createClient()
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(try peer.get(client, Peer.clientInterface, "InterfaceOrientation") == .string("left-up"))
        try lock(peer, false)
        #expect(try peer.managerProperty("Orientation") == .string("normal"), "stderr:\n\(daemon.stderr)")
        stop(daemon)
        (daemon, peer) = try start(bus, stateDirectory: state)
        #expect(try peer.managerProperty("RotationLocked") == .bool(false), "stderr:\n\(daemon.stderr)")
        stop(daemon)
    }

    @Test func withoutAStateDirectoryTheLockLastsAsLongAsTheDaemon() throws {
        let bus = try TestBus()
        let (daemon, peer) = try start(bus, stateDirectory: nil)
        #expect(try !lockedAfterARestart(bus, daemon, peer, stateDirectory: nil))
    }

    /// A state file the daemon did not write: one warning, unlocked, and the next change
    /// writes a good one.
    @Test func aBadStateFileIsOneWarningAndTheRotationUnlocked() throws {
        let bus = try TestBus()
        let state = try makeStateDirectory(bus)
        try "RotationLocked=perhaps\n".write(toFile: state + "/state", atomically: true, encoding: .utf8)
        let (daemon, peer) = try start(bus, stateDirectory: state)
        #expect(try peer.managerProperty("RotationLocked") == .bool(false))
        #expect(daemon.stderr.contains("state:1: expected RotationLocked=true or =false"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("the rotation starts unlocked"), "\(daemon.stderr)")
        #expect(try lockedAfterARestart(bus, daemon, peer, stateDirectory: state))
    }

    /// A state directory the daemon cannot write to: the lock holds for this run, and
    /// one warning says it will not survive.
    @Test func anUnwritableStateIsSaidAndTheLockHolds() throws {
        let bus = try TestBus()
        let state = bus.directory + "/state-dir"
        try FileManager.default.createDirectory(atPath: state + "/state", withIntermediateDirectories: true)
        let (daemon, peer) = try start(bus, stateDirectory: state)
        try lock(peer, true)
        #expect(try peer.managerProperty("RotationLocked") == .bool(true))
        #expect(waitUntil(seconds: 10) { daemon.stderr.contains("RotationLocked holds until the daemon stops") }, "\(daemon.stderr)")
        stop(daemon)
    }
}
