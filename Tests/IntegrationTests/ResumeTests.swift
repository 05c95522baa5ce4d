import DBus
import Foundation
import Testing
import TestSupport

/// logind's PrepareForSleep(false) re-arms the sensor in use.
@Suite struct ResumeTests {
    /// A daemon holding normal, with one started client.
    func startedClient() throws -> (DaemonFixture, Peer) {
        let (fixture, peer) = try DaemonFixture.upright(holdMs: 200)
        let client = try peer.createClient()
        try peer.call(client, Peer.clientInterface, "Start")
        return (fixture, peer)
    }

    @Test func resumeRearmsTheSensorWhileAClientIsStarted() throws {
        let (fixture, peer) = try startedClient()
        // A stand-in for logind announces the end of a suspend.
        let logind = try Peer(bus: fixture.bus, watchManager: false)
        _ = try logind.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                            [.string("org.freedesktop.login1"), .uint32(4)], destination: "org.freedesktop.DBus")
        // Samples the engine has not seen yet: they become the fresh reading at re-arm.
        logind.connection.send(try Message.signal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                                  member: "PrepareForSleep", arguments: [.bool(true)]))
        logind.connection.send(try Message.signal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                                  member: "PrepareForSleep", arguments: [.bool(false)]))
        logind.connection.flush()
        #expect(waitForStderr(fixture, containing: "resumed from sleep: re-arming the sensor"))
        #expect(fixture.daemon.stderr.components(separatedBy: "re-arming").count == 2, "PrepareForSleep(true) must not re-arm")
        // Still serving, client still started.
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
    }

    /// A unicast PrepareForSleep from any other peer (the match rule does not stop
    /// unicast signals) is ignored, on every bus; logind's own still counts.
    @Test func onlyLogindsOwnerMayRearm() throws {
        let (fixture, peer) = try startedClient()
        let daemonName = try #require(try peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                                                    [.string("org.orientationd.Orientation1")], destination: "org.freedesktop.DBus").first?.stringValue)
        let impostor = try Peer(bus: fixture.bus, watchManager: false)
        impostor.connection.send(try Message.signal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                                    member: "PrepareForSleep", arguments: [.bool(false)], destination: daemonName))
        // A round trip on the same connection: the daemon has handled the signal by then.
        _ = try impostor.call("/org/orientationd/Orientation1", "org.freedesktop.DBus.Peer", "Ping", [], destination: daemonName)
        #expect(!fixture.daemon.stderr.contains("re-arming"), "a peer that is not logind re-armed the sensor")

        let logind = try Peer(bus: fixture.bus, watchManager: false)
        _ = try logind.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                            [.string("org.freedesktop.login1"), .uint32(4)], destination: "org.freedesktop.DBus")
        logind.connection.send(try Message.signal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                                  member: "PrepareForSleep", arguments: [.bool(false)], destination: daemonName))
        logind.connection.flush()
        #expect(waitForStderr(fixture, containing: "resumed from sleep: re-arming the sensor"))
        #expect(fixture.daemon.stderr.components(separatedBy: "re-arming").count == 2)
    }
}
