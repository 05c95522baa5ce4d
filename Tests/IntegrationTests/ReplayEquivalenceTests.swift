import DBus
import Foundation
import Testing
import TestSupport

/// The daemon decides exactly as `orientationctl replay` does on the same recording: its
/// replay sensor stamps samples on the monotonic clock its deadline timer runs on. (With
/// the recording's own clock, every settle time completed at once and a single 20 ms
/// reading turned the screen.)
@Suite struct ReplayEquivalenceTests {
    /// Upright, one 20 ms reading in left-up (a knock, a stride), upright again, then a
    /// real turn to left-up held, at 50 Hz.
    static let trace: String = {
        var lines: [String] = []
        var t = 0
        func hold(_ pose: DaemonFixture.Pose, _ ms: Int) {
            for _ in 0..<(ms / 20) {
                lines.append("\(t),\(pose.x),\(pose.y),\(pose.z)")
                t += 20
            }
        }
        // Long enough for the client to start before the reading (the file plays from
        // the moment the daemon opens it).
        hold(.normal, 3000)
        hold(.leftUp, 20)
        hold(.normal, 1000)
        hold(.leftUp, 1500)
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test func aFileReplayedByTheDaemonGivesTheChangesOfOrientationctlReplay() throws {
        let bus = try TestBus()
        let path = bus.directory + "/trace.csv"
        try Self.trace.write(toFile: path, atomically: true, encoding: .utf8)
        let replayed = try ChildProcess.run(product: "orientationctl", arguments: ["replay", path], directory: bus.directory)
        #expect(replayed.status == 0)
        var expected: [String] = []
        for line in replayed.stdout.split(separator: "\n") {
            let o = String(line.split(separator: ",")[1])
            if expected.last != o { expected.append(o) }
        }
        #expect(expected == ["normal", "left-up"], "orientationctl replay: \(replayed.stdout)")

        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + path],
                                      directory: bus.directory)
        let peer = try Peer(bus: bus)
        #expect(peer.waitForService(), "stderr:\n\(daemon.stderr)")
        let client = try peer.createClient()
        try peer.call(client, Peer.clientInterface, "Start")
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("Orientation")) == .string("left-up") },
                "stderr:\n\(daemon.stderr)")
        func wills() -> [String] {
            peer.signalSummaries(path: Peer.manager).filter { $0.contains("OrientationWillChange") && !$0.contains("undefined") }
        }
        #expect(peer.waitUntil(seconds: 5) { !wills().isEmpty })
        // The single reading in left-up is no change: one will-change, normal to left-up.
        #expect(wills() == ["\(Peer.manager) OrientationWillChange normal,left-up"], "\(wills())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
