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

    /// A recording (a file) is read whole at start: its skipped lines are named once per
    /// kind and counted at once, its gyroscope's too.
    @Test func aRecordingsSkippedLinesAreCountedAsItLoads() throws {
        let bus = try TestBus()
        var text = ""
        for i in 0...100 { text += "\(i * 20),0,-9.81,0\n" }
        for i in 1...300 { text += "\(i),0,-9.81,0\n" }
        text += "2020,0,-9.81,0\n"
        let trace = bus.directory + "/jump.csv"
        try text.write(toFile: trace, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: bus.directory + "/gyro", withIntermediateDirectories: true)
        try text.replacingOccurrences(of: "-9.81", with: "0.01").write(toFile: bus.directory + "/gyro/jump.csv", atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + trace, "--verbose"],
                                      directory: bus.directory)
        #expect(waitUntil(seconds: 20) { daemon.stderr.contains("serving org.orientationd.Orientation1") }, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let skips = daemon.stderr.split(separator: "\n").filter { $0.contains("skipped") }
        #expect(skips.count == 4, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("replay: line 102: t_ms 1 does not come after 2000, skipped"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("replay: 299 more lines skipped (t_ms does not increase), the last at line 401"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("gyro/jump.csv: 299 more lines skipped (t_ms does not increase)"), "\(daemon.stderr)")
    }

    /// The first malformed line and the first back in time are each named; the lines like
    /// them after those are counted, and the count is said when the stream ends (here, a
    /// FIFO that never does: when the daemon stops).
    @Test func malformedReplayLinesAreSkippedWithAWarningNamingTheLine() throws {
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        fixture.write("0,0,-9.81,0\nthis is not a sample\n20,nan,0,0\n40,1,2\n60,0,-9.81,0\n30,0,-9.81,0\n")
        for k in 0..<500 { fixture.write("\(k % 50),0,-9.81,0\n") }
        fixture.write("80,0,-9.81,0\n")
        #expect(fixture.drained())
        #expect(waitForStderr(fixture, containing: "replay: line 2: expected 4 fields"), "\(fixture.daemon.stderr)")
        #expect(waitForStderr(fixture, containing: "replay: line 6: t_ms 30 does not come after 60"), "\(fixture.daemon.stderr)")
        for line in [3, 4, 5, 7, 506, 507] { #expect(!fixture.daemon.stderr.contains("line \(line):"), "\(fixture.daemon.stderr)") }
        let path = try peer.createClient()
        try peer.call(path, Peer.clientInterface, "Start")
        #expect(try peer.managerProperty("Orientation") == .string("normal"))
        fixture.daemon.signal(SIGTERM)
        #expect(fixture.daemon.waitForExit() == 0)
        #expect(fixture.daemon.stderr.contains("replay: 2 more lines skipped (not t_ms,x,y,z), the last at line 4"), "\(fixture.daemon.stderr)")
        #expect(fixture.daemon.stderr.contains("replay: 500 more lines skipped (t_ms does not increase), the last at line 506"), "\(fixture.daemon.stderr)")
    }
}
