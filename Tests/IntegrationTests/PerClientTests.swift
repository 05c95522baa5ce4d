@_spi(Testing) import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// The per-client API of api.md observed over D-Bus: rules 1-4, signal routing,
/// limits, the rotation lock, and rejected calls that change nothing.
@Suite struct PerClientTests {
    /// A fixture whose device is held in `orientation` and one started client per options set.
    static func started(_ orientation: String, _ options: [(String, Value)], on fixture: DaemonFixture, peer: Peer) throws -> String {
        fixture.hold(DaemonFixture.pose(of: orientation), durationMs: 400)
        #expect(fixture.drained())
        let path = try peer.createClient(options)
        try peer.call(path, Peer.clientInterface, "Start")
        return path
    }

    static func rotate(_ fixture: DaemonFixture, _ peer: Peer, to orientation: String) {
        fixture.hold(DaemonFixture.pose(of: orientation), durationMs: 1500)
        #expect(peer.waitUntil { (try? peer.managerProperty("Orientation")) == .string(orientation) },
                "device did not reach \(orientation)")
        peer.connection.dispatchQueued()
    }

    @Test func readerKeepsItsLayoutForUnsupportedOrientations() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let reader = try Self.started("normal", [("SupportedOrientations", .strings(["normal", "bottom-up"])),
                                                 ("PreferredOrientation", .string("normal"))], on: fixture, peer: peer)
        peer.clearSignals()
        Self.rotate(fixture, peer, to: "left-up")
        // Rule 2: left-up unsupported → interface stays normal; content rotates by 90.
        #expect(try peer.get(reader, Peer.clientInterface, "DeviceOrientation") == .string("left-up"))
        #expect(try peer.get(reader, Peer.clientInterface, "InterfaceOrientation") == .string("normal"))
        #expect(try peer.get(reader, Peer.clientInterface, "ContentRotation") == .uint32(90))
        #expect(peer.signalSummaries(path: reader) == [
            "\(reader) OrientationWillChange normal,normal,90",
            "\(reader) PropertiesChanged DeviceOrientation=left-up,ContentRotation=90",
        ])
        peer.clearSignals()
        Self.rotate(fixture, peer, to: "bottom-up")
        #expect(peer.signalSummaries(path: reader) == [
            "\(reader) OrientationWillChange normal,bottom-up,0",
            "\(reader) PropertiesChanged DeviceOrientation=bottom-up,InterfaceOrientation=bottom-up,ContentRotation=0",
        ])
    }

    @Test func cameraAppRotatesOnlyItsContent() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let camera = try Self.started("normal", [("SupportedOrientations", .strings(["normal"]))], on: fixture, peer: peer)
        var rotations: [Value] = []
        for orientation in ["left-up", "bottom-up", "right-up", "normal"] {
            Self.rotate(fixture, peer, to: orientation)
            #expect(try peer.get(camera, Peer.clientInterface, "InterfaceOrientation") == .string("normal"))
            rotations.append(try peer.get(camera, Peer.clientInterface, "ContentRotation"))
        }
        #expect(rotations == [.uint32(90), .uint32(180), .uint32(270), .uint32(0)])
    }

    @Test func creationPicksDeviceThenPreferred() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let observer = try Self.started("left-up", [], on: fixture, peer: peer)
        #expect(try peer.get(observer, Peer.clientInterface, "InterfaceOrientation") == .string("left-up"))
        // Rule 1: device left-up unsupported, nothing current → preferred.
        let reader = try peer.createClient([("SupportedOrientations", .strings(["normal", "bottom-up"])),
                                            ("PreferredOrientation", .string("bottom-up"))])
        #expect(try peer.get(reader, Peer.clientInterface, "InterfaceOrientation") == .string("bottom-up"))
        #expect(try peer.get(reader, Peer.clientInterface, "ContentRotation") == .uint32(270))
        // Default preferred: the first supported in contract order.
        let other = try peer.createClient([("SupportedOrientations", .strings(["right-up", "bottom-up"]))])
        #expect(try peer.get(other, Peer.clientInterface, "PreferredOrientation") == .string("bottom-up"))
    }

    @Test func setSupportedOrientationsReevaluatesAtOnce() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let client = try Self.started("left-up", [("SupportedOrientations", .strings(["normal"]))], on: fixture, peer: peer)
        #expect(try peer.get(client, Peer.clientInterface, "InterfaceOrientation") == .string("normal"))
        peer.clearSignals()
        try peer.call(client, Peer.clientInterface, "SetSupportedOrientations", [.strings(["normal", "left-up"]), .string("")])
        #expect(try peer.get(client, Peer.clientInterface, "InterfaceOrientation") == .string("left-up"))
        #expect(try peer.get(client, Peer.clientInterface, "SupportedOrientations") == .strings(["normal", "left-up"]))
        peer.connection.dispatchQueued()
        #expect(peer.signalSummaries(path: client) == [
            "\(client) OrientationWillChange normal,left-up,0",
            "\(client) PropertiesChanged SupportedOrientations=[normal,left-up],InterfaceOrientation=left-up,ContentRotation=0",
        ])
        // Invalid sets are rejected and change nothing.
        for (list, preferred) in [([String](), ""), (["normal", "normal"], ""), (["sideways"], ""), (["normal"], "left-up")] {
            #expect(peer.callError(client, Peer.clientInterface, "SetSupportedOrientations", [.strings(list), .string(preferred)])?.name
                    == "org.freedesktop.DBus.Error.InvalidArgs")
        }
        #expect(try peer.get(client, Peer.clientInterface, "SupportedOrientations") == .strings(["normal", "left-up"]))
    }

    @Test func clientSignalsGoToTheOwnerOnly() throws {
        let fixture = try DaemonFixture()
        let owner = try fixture.peer()
        let stranger = try fixture.peer()
        // The stranger asks for every signal the daemon sends.
        try stranger.connection.addMatch("type='signal',sender='\(Peer.service)'")
        let client = try Self.started("normal", [], on: fixture, peer: owner)
        Self.rotate(fixture, owner, to: "left-up")
        #expect(owner.signalSummaries(path: client).contains("\(client) OrientationWillChange normal,left-up,0"))
        // The stranger sees the manager's broadcast, and nothing of the client.
        #expect(stranger.waitUntil { stranger.signalSummaries(path: Peer.manager).contains("\(Peer.manager) OrientationWillChange normal,left-up") })
        try stranger.call(Peer.manager, "org.freedesktop.DBus.Peer", "Ping")
        stranger.connection.dispatchQueued()
        #expect(stranger.signalSummaries(path: client).isEmpty)
    }

    @Test func perConnectionLimitAndCloseFreesASlot() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        var paths: [String] = []
        for _ in 0..<64 { paths.append(try peer.createClient()) }
        let refused = peer.callError(Peer.manager, Peer.managerInterface, "CreateClient", [.vardict([])])
        #expect(refused?.name == "org.orientationd.Orientation1.Error.LimitExceeded")
        // Another connection still may.
        let other = try fixture.peer()
        _ = try other.createClient()
        try peer.call(paths[0], Peer.clientInterface, "Close")
        _ = try peer.createClient()
    }

    @Test func globalLimit() throws {
        let fixture = try DaemonFixture()
        var peers: [Peer] = []
        for _ in 0..<64 {
            let peer = try fixture.peer()
            for _ in 0..<64 { _ = try peer.createClient() }
            peers.append(peer)
        }
        let late = try fixture.peer()
        #expect(late.callError(Peer.manager, Peer.managerInterface, "CreateClient", [.vardict([])])?.name
                == "org.orientationd.Orientation1.Error.LimitExceeded")
        // A connection that leaves frees its 64 slots.
        peers.removeLast().connection.close()
        #expect(late.waitUntil {
            late.callError(Peer.manager, Peer.managerInterface, "CreateClient", [.vardict([])]) == nil
        })
    }

    @Test func lockFreezesFollowersOnly() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let follower = try Self.started("normal", [], on: fixture, peer: peer)
        let camera = try peer.createClient([("FollowsLock", .bool(false))])
        try peer.call(camera, Peer.clientInterface, "Start")
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(true))
        #expect(try peer.managerProperty("RotationLocked") == .bool(true))
        peer.clearSignals()

        fixture.hold(.leftUp, durationMs: 1500)
        #expect(peer.waitUntil { (try? peer.get(camera, Peer.clientInterface, "DeviceOrientation")) == .string("left-up") })
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        #expect(try peer.get(follower, Peer.clientInterface, "DeviceOrientation") == .string("normal"))
        peer.connection.dispatchQueued()
        #expect(!peer.signalSummaries(path: Peer.manager).contains { $0.contains("OrientationWillChange") })
        #expect(peer.signalSummaries(path: follower).isEmpty)

        // Unlocking applies the current orientation at once, with the will-change first.
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(false))
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
        #expect(try peer.get(follower, Peer.clientInterface, "InterfaceOrientation") == .string("left-up"))
        peer.connection.dispatchQueued()
        let manager = peer.signalSummaries(path: Peer.manager)
        #expect(manager.contains("\(Peer.manager) OrientationWillChange normal,left-up"))
        #expect(peer.signalSummaries(path: follower).first == "\(follower) OrientationWillChange normal,left-up,0")
    }

    @Test func orientationctlLockAndUnlock() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let lock = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "lock"], directory: fixture.bus.directory)
        #expect(lock.status == 0)
        #expect(try peer.managerProperty("RotationLocked") == .bool(true))
        let unlock = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "unlock"], directory: fixture.bus.directory)
        #expect(unlock.status == 0)
        #expect(try peer.managerProperty("RotationLocked") == .bool(false))
    }

    @Test func callsOnClosedClientsFail() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Close")
        for member in ["Start", "Stop", "Close"] {
            #expect(peer.callError(path, Peer.clientInterface, member)?.name == "org.freedesktop.DBus.Error.UnknownObject")
        }
        #expect(try peer.managerProperty("ActiveClients") == .uint32(0))
    }

    @Test func killedClientReleasesTheSensor() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let monitor = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                       directory: fixture.bus.directory)
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(1) })
        monitor.signal(SIGKILL)
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(0) })
        // The sensor is no longer read: new samples change nothing.
        fixture.hold(.bottomUp, durationMs: 1500)
        #expect(fixture.drained())
        try peer.call(Peer.manager, "org.freedesktop.DBus.Peer", "Ping")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
    }

    @Test func monitorOptions() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.hold(.leftUp, durationMs: 300)
        #expect(fixture.drained())
        let monitor = try ChildProcess(product: "orientationctl",
                                       arguments: ["--address", fixture.bus.address, "monitor", "--supported", "normal,bottom-up",
                                                   "--preferred", "bottom-up", "--no-follow-lock"],
                                       directory: fixture.bus.directory)
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(1) })
        #expect(waitUntil(seconds: 10) { monitor.stdout.contains("state: device left-up") })
        #expect(monitor.stdout.contains("interface bottom-up, content rotation 270"))
        monitor.signal(SIGTERM)
        #expect(monitor.waitForExit() == 0)
        let bad = try ChildProcess.run(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor", "--supported", "normal,sideways"],
                                       directory: fixture.bus.directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown orientation 'sideways'"))
    }
}

/// ClientsForProcess: the started clients of one process, from the bus's credentials.
@Suite struct ClientsForProcessTests {
    @Test func startedClientsOfTheProcessInCreationOrder() throws {
        let (fixture, peer) = try DaemonFixture.upright(holdMs: 200)
        let other = try Peer(bus: fixture.bus, watchManager: false)
        let first = try peer.createClient()
        let idle = try peer.createClient()
        let third = try other.createClient()
        try peer.call(first, Peer.clientInterface, "Start")
        try other.call(third, Peer.clientInterface, "Start")
        _ = idle
        // Both connections are this test process; the client never started is left out.
        let mine = try peer.call(Peer.manager, Peer.managerInterface, "ClientsForProcess", [.uint32(UInt32(getpid()))])
        #expect(mine == [.array(elementSignature: "o", [.objectPath(first), .objectPath(third)])], "\(mine)")
        // Asked again (the owners' processes are remembered now), and for another process.
        let again = try other.call(Peer.manager, Peer.managerInterface, "ClientsForProcess", [.uint32(UInt32(getpid()))])
        #expect(again == mine)
        let daemonPID = try peer.call(Peer.manager, Peer.managerInterface, "ClientsForProcess", [.uint32(1)])
        #expect(daemonPID == [.array(elementSignature: "o", [])])
        // A wrong argument type is InvalidArgs.
        #expect(throws: (any Error).self) { try peer.call(Peer.manager, Peer.managerInterface, "ClientsForProcess", [.string("me")]) }
    }
}
