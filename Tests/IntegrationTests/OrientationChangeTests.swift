import DBus
import Foundation
import Testing
import TestSupport

/// Samples written to the replay FIFO reach the engine and come out as ordered signals.
@Suite struct OrientationChangeTests {
    @Test func rotationsAreSeenInOrderWithWillChangeFirst() throws {
        let (fixture, peer) = try DaemonFixture.upright(holdMs: 500)
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        peer.clearSignals()

        let sequence = ["left-up", "bottom-up", "right-up", "normal"]
        for target in sequence {
            fixture.hold(DaemonFixture.pose(of: target), durationMs: 1500)
            #expect(peer.waitUntil { peer.signalSummaries(path: path).contains { $0.contains("InterfaceOrientation=\(target)") } },
                    "no change to \(target); stderr:\n\(fixture.daemon.stderr)")
        }
        let manager = peer.signalSummaries(path: Peer.manager).filter { !$0.contains("ActiveClients") }
        let wills = manager.filter { $0.contains("OrientationWillChange") }
        #expect(wills == [
            "\(Peer.manager) OrientationWillChange normal,left-up",
            "\(Peer.manager) OrientationWillChange left-up,bottom-up",
            "\(Peer.manager) OrientationWillChange bottom-up,right-up",
            "\(Peer.manager) OrientationWillChange right-up,normal",
        ])
        // For each change: manager will-change, manager PropertiesChanged, client
        // will-change, client PropertiesChanged — adjacent, in that order.
        let all = peer.signalSummaries().filter { !$0.contains("NameOwnerChanged") }
        for (from, to) in zip(["normal"] + sequence.dropLast(), sequence) {
            let start = try #require(all.firstIndex(of: "\(Peer.manager) OrientationWillChange \(from),\(to)"))
            #expect(all[start + 1].hasPrefix("\(Peer.manager) PropertiesChanged Orientation=\(to)"))
            #expect(all[start + 2] == "\(path) OrientationWillChange \(from),\(to),0")
            #expect(all[start + 3].hasPrefix("\(path) PropertiesChanged DeviceOrientation=\(to),InterfaceOrientation=\(to)"))
        }
    }

    @Test func orientationIsNotUpdatedWhileNoClientIsStarted() throws {
        let (fixture, peer) = try DaemonFixture.upright()
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        try peer.call(path, Peer.clientInterface, "Stop")
        peer.clearSignals()
        fixture.hold(.leftUp, durationMs: 1500)
        #expect(fixture.drained())
        try peer.call(Peer.manager, "org.freedesktop.DBus.Peer", "Ping")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        #expect(!peer.signalSummaries().contains { $0.contains("Orientation") })
        // Starting again reads the latest sample at once.
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("left-up"))
    }

    @Test func malformedReplayLinesAreSkippedWithAWarningNamingTheLine() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.write("0,0,-9.81,0\nthis is not a sample\n20,nan,0,0\n40,1,2\n60,0,-9.81,0\n")
        #expect(fixture.drained())
        #expect(waitForStderr(fixture, containing: "line 2"))
        #expect(waitForStderr(fixture, containing: "line 3"))
        #expect(waitForStderr(fixture, containing: "line 4"))
        #expect(!fixture.daemon.stderr.contains("line 5"))
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
    }
}
