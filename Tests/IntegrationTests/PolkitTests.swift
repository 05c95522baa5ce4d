import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Start and RotationLocked under polkit, with python-dbusmock's polkitd standing in
/// for org.freedesktop.PolicyKit1 on the test bus.
@Suite struct PolkitTests {
    static let polkit = "org.freedesktop.PolicyKit1"

    /// The daemon asking polkit (--polkit), python-dbusmock's polkitd standing in, and a peer.
    static func withMockPolkit() throws -> (DaemonFixture, Peer, MockService) {
        let fixture = try DaemonFixture(extraArguments: ["--polkit"])
        let peer = try fixture.peer()
        return (fixture, peer, try MockService(template: "polkitd", name: polkit, bus: fixture.bus, peer: peer))
    }
    static let mockPath = "/org/freedesktop/PolicyKit1/Authority"
    static let mockInterface = "org.freedesktop.DBus.Mock"

    @Test func deniedCallsGetNotAuthorizedAndChangeNothing() throws {
        let (fixture, peer, mock) = try Self.withMockPolkit()
        let client = try peer.createClient()
        let start = peer.callError(client, Peer.clientInterface, "Start")
        #expect(start?.name == "org.orientationd.Orientation1.Error.NotAuthorized")
        #expect(start?.message.contains("org.orientationd.Orientation1.claim") == true)
        #expect(try peer.get(client, Peer.clientInterface, "Active") == .bool(false))
        #expect(try peer.managerProperty("ActiveClients") == .uint32(0))
        let lock = peer.callError(Peer.manager, "org.freedesktop.DBus.Properties", "Set",
                                  [.string(Peer.managerInterface), .string("RotationLocked"), .variant(.bool(true))])
        #expect(lock?.name == "org.orientationd.Orientation1.Error.NotAuthorized")
        #expect(try peer.managerProperty("RotationLocked") == .bool(false))
        withExtendedLifetime((fixture, mock)) {}
    }

    @Test func allowedActionsSucceed() throws {
        let (fixture, peer, mock) = try Self.withMockPolkit()
        try peer.call(Self.mockPath, Self.mockInterface, "SetAllowed",
                      [.strings(["org.orientationd.Orientation1.claim", "org.orientationd.Orientation1.lock"])], destination: Self.polkit)
        fixture.hold(.normal, durationMs: 200)
        #expect(fixture.drained())
        let client = try peer.createClient()
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(try peer.get(client, Peer.clientInterface, "Active") == .bool(true))
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        try peer.set(Peer.manager, Peer.managerInterface, "RotationLocked", .bool(true))
        #expect(try peer.managerProperty("RotationLocked") == .bool(true))
        withExtendedLifetime((fixture, mock)) {}
    }

    /// While polkit takes its time, the daemon keeps answering everyone else.
    @Test func aSlowPolkitDoesNotBlockTheDaemon() throws {
        let (fixture, peer, mock) = try Self.withMockPolkit()
        try peer.call(Self.mockPath, Self.mockInterface, "SetAllowed", [.strings(["org.orientationd.Orientation1.claim"])], destination: Self.polkit)
        try peer.call(Self.mockPath, Self.mockInterface, "SimulateHang", [.bool(true)], destination: Self.polkit)
        let client = try peer.createClient()
        // Start without waiting for its reply.
        var startReply: Message?
        let startCall = try Message.methodCall(destination: Peer.service, path: client, interface: Peer.clientInterface, member: "Start")
        peer.connection.callAsync(startCall, timeoutMs: 20_000) { result in startReply = try? result.get() }
        #expect(peer.waitUntil { (try? peer.call(Self.mockPath, Self.mockInterface, "HaveHangingCalls", destination: Self.polkit))?.first == .bool(true) })
        // The daemon answers while the check hangs.
        let other = try fixture.peer()
        _ = try other.createClient()
        #expect(try other.managerProperty("ActiveClients") == .uint32(0))
        #expect(startReply == nil)
        try peer.call(Self.mockPath, Self.mockInterface, "ReleaseHangingCalls", destination: Self.polkit)
        #expect(peer.waitUntil { startReply != nil })
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        withExtendedLifetime((fixture, mock)) {}
    }

    @Test func absentPolkitRefusesWithAClearMessage() throws {
        let fixture = try DaemonFixture(extraArguments: ["--polkit"])
        let peer = try fixture.peer()
        let client = try peer.createClient()
        let error = peer.callError(client, Peer.clientInterface, "Start")
        #expect(error?.name == "org.orientationd.Orientation1.Error.NotAuthorized")
        #expect(error?.message.contains("polkit is not available") == true)
        // Every refusal is an error reply; the log says it once, not once a call.
        for _ in 0..<5 { #expect(peer.callError(client, Peer.clientInterface, "Start")?.name == "org.orientationd.Orientation1.Error.NotAuthorized") }
        #expect(fixture.daemon.stderr.components(separatedBy: "warning: cannot check").count == 2, "\(fixture.daemon.stderr)")
    }

    /// polkit gone, then back: the warning is said once while it is gone, and again the
    /// next time it goes after it answered.
    @Test func polkitComingAndGoingIsSaidOnceEachTime() throws {
        let fixture = try DaemonFixture(extraArguments: ["--polkit"])
        let peer = try fixture.peer()
        let client = try peer.createClient()
        for _ in 0..<3 { _ = peer.callError(client, Peer.clientInterface, "Start") }
        var mock: MockService? = try MockService(template: "polkitd", name: Self.polkit, bus: fixture.bus, peer: peer)
        try peer.call(Self.mockPath, Self.mockInterface, "SetAllowed", [.strings(["org.orientationd.Orientation1.claim"])], destination: Self.polkit)
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(waitForStderr(fixture, containing: "polkit answers again"), "\(fixture.daemon.stderr)")
        withExtendedLifetime(mock) {}
        mock = nil
        #expect(peer.waitUntil {
            (try? peer.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(Self.polkit)],
                            destination: "org.freedesktop.DBus"))?.first == .bool(false)
        })
        try peer.call(client, Peer.clientInterface, "Stop")
        for _ in 0..<3 { _ = peer.callError(client, Peer.clientInterface, "Start") }
        #expect(fixture.daemon.stderr.components(separatedBy: "warning: cannot check").count == 3, "\(fixture.daemon.stderr)")
    }

    @Test func noPolkitAllowsEverything() throws {
        let fixture = try DaemonFixture(extraArguments: ["--polkit", "--no-polkit"])
        let peer = try fixture.peer()
        let client = try peer.createClient()
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(try peer.get(client, Peer.clientInterface, "Active") == .bool(true))
    }
}
