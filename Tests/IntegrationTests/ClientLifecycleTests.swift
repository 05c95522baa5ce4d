import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Client objects: creation, start/stop/close, ownership, death with the owner.
@Suite struct ClientLifecycleTests {
    @Test func createStartStopClose() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.hold(.normal, durationMs: 200)
        let path = try peer.createClient()
        #expect(path.hasPrefix("/org/orientationd/Orientation1/Client/"))
        #expect(try peer.get(path, Peer.clientInterface, "Active") == .bool(false))
        #expect(try peer.get(path, Peer.clientInterface, "SupportedOrientations") == .strings(["normal", "left-up", "bottom-up", "right-up"]))
        #expect(try peer.get(path, Peer.clientInterface, "PreferredOrientation") == .string("normal"))

        // The daemon has the samples before Start, so the fresh reading exists.
        #expect(fixture.drained())
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.get(path, Peer.clientInterface, "Active") == .bool(true))
        #expect(try peer.managerProperty("ActiveClients") == .uint32(1))
        // Start returns with a fresh reading: the latest sample was "normal".
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        #expect(try peer.managerProperty("Tilt") == .string("vertical"))
        #expect(try peer.get(path, Peer.clientInterface, "DeviceOrientation") == .string("normal"))

        try peer.call(path, Peer.clientInterface, "Stop")
        #expect(try peer.managerProperty("ActiveClients") == .uint32(0))
        #expect(try peer.get(path, Peer.clientInterface, "Active") == .bool(false))

        try peer.call(path, Peer.clientInterface, "Close")
        #expect(peer.callError(path, Peer.clientInterface, "Start")?.name == "org.freedesktop.DBus.Error.UnknownObject")
        // Numbers are never reused.
        let next = try peer.createClient()
        #expect(next != path)
    }

    @Test func clientOfAKilledProcessIsRemoved() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.hold(.normal, durationMs: 100)
        let monitor = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                       directory: fixture.bus.directory)
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(1) })
        let clientPath = try #require(clientPathOf(peer))
        monitor.signal(SIGKILL)
        _ = monitor.waitForExit()
        #expect(peer.waitUntil { (try? peer.managerProperty("ActiveClients")) == .uint32(0) })
        #expect(peer.callError(clientPath, "org.freedesktop.DBus.Properties", "GetAll", [.string(Peer.clientInterface)])?.name
                == "org.freedesktop.DBus.Error.UnknownObject")
    }

    @Test func onlyTheOwnerMayCallClientMethods() throws {
        let fixture = try DaemonFixture()
        let owner = try fixture.peer()
        let stranger = try fixture.peer()
        let path = try owner.createClient()
        for member in ["Start", "Stop", "Close"] {
            #expect(stranger.callError(path, Peer.clientInterface, member)?.name == "org.freedesktop.DBus.Error.AccessDenied")
        }
        #expect(stranger.callError(path, Peer.clientInterface, "SetSupportedOrientations", [.strings(["normal"]), .string("")])?.name
                == "org.freedesktop.DBus.Error.AccessDenied")
        // Properties stay readable by anyone.
        #expect(try stranger.get(path, Peer.clientInterface, "Active") == .bool(false))
        #expect(try owner.managerProperty("ActiveClients") == .uint32(0))
    }

    @Test func wrongArgumentTypesGetInvalidArgs() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        #expect(peer.callError(Peer.manager, Peer.managerInterface, "CreateClient", [.int32(1)])?.name
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(peer.callError(Peer.manager, Peer.managerInterface, "CreateClient")?.name
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(peer.callError(Peer.manager, Peer.managerInterface, "NoSuchMethod")?.name
                == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(peer.callError(Peer.manager, "org.example.Nope", "CreateClient", [.vardict([])])?.name
                == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(peer.callError("/org/orientationd/Orientation1/Client/999", Peer.clientInterface, "Start")?.name
                == "org.freedesktop.DBus.Error.UnknownObject")
        #expect(peer.callError(Peer.manager, "org.freedesktop.DBus.Properties", "Get", [.string(Peer.managerInterface), .string("Nope")])?.name
                == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(peer.callError(Peer.manager, "org.freedesktop.DBus.Properties", "Set",
                               [.string(Peer.managerInterface), .string("Orientation"), .variant(.string("normal"))])?.name
                == "org.freedesktop.DBus.Error.PropertyReadOnly")
        #expect(peer.callError(Peer.manager, "org.freedesktop.DBus.Properties", "Set",
                               [.string(Peer.managerInterface), .string("RotationLocked"), .variant(.string("yes"))])?.name
                == "org.freedesktop.DBus.Error.InvalidArgs")
        // The daemon is still there and unchanged.
        #expect(try peer.managerProperty("RotationLocked") == .bool(false))
    }
}

/// The path of the single client object, found by introspecting the Client node.
func clientPathOf(_ peer: Peer) -> String? {
    guard let xml = try? peer.call("/org/orientationd/Orientation1/Client", "org.freedesktop.DBus.Introspectable", "Introspect")[0].stringValue,
          let range = xml.range(of: "<node name=\"") else { return nil }
    let rest = xml[range.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return "/org/orientationd/Orientation1/Client/" + rest[..<end]
}

func waitForStderr(_ fixture: DaemonFixture, containing text: String, seconds: Double = 10) -> Bool {
    waitUntil(seconds: seconds) { fixture.daemon.stderr.contains(text) }
}
