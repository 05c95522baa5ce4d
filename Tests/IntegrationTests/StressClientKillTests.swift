import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Fault campaign 1: client processes (`orientationctl monitor`) SIGKILLed at random
/// moments of their life (before CreateClient returns, after Start, while signals
/// arrive) leave nothing behind: no client object, ActiveClients 0, the sensor no
/// longer read, the daemon's descriptors back where they were.
@Suite(.serialized) struct StressClientKillTests {
    static let campaign = "killed clients"

    @Test func clientsKilledAtRandomMomentsLeaveNothingBehind() throws {
        let total = Stress.count(short: 40, full: 1000)
        let batchSize = Stress.count(short: 10, full: 25)
        var random = SplitMix(seed: Stress.seed(Self.campaign))
        let started = Date()
        let fixture = try DaemonFixture()
        let peer = try fixture.peer()
        let pid = fixture.daemon.pid
        fixture.hold(.normal, durationMs: 300)
        #expect(fixture.drained())

        // Calibration: how long one monitor takes to print its state (the life to aim in).
        let calibration = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                           directory: fixture.bus.directory)
        let calibrationStart = Date()
        #expect(waitUntil(seconds: 20) { calibration.stdout.contains("state:") }, "monitor never printed its state: \(calibration.stderr)")
        let lifeMs = Swift.max(60, Int(Date().timeIntervalSince(calibrationStart) * 1000))
        calibration.signal(SIGKILL)
        _ = calibration.waitForExit()
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("ActiveClients")) == .uint32(0) })
        let maxDelayMs = lifeMs * 5 / 2
        Stress.report(Self.campaign, "a monitor prints its state \(lifeMs) ms after spawn: kills at 0…\(maxDelayMs) ms, \(total) processes in batches of \(batchSize)")

        var fds = StressSeries("daemon fds"), rss = StressSeries("daemon RSS", unit: " KB")
        fds.add(Stress.fdCount(pid))
        rss.add(Stress.rssKB(pid))
        let baselineFds = fds.first
        var phases: [String: Int] = [:]
        var poseIndex = 0
        let poses: [DaemonFixture.Pose] = [.leftUp, .normal, .rightUp, .bottomUp]
        var lastRotation = Date.distantPast
        var killed = 0
        let deadline = Date().addingTimeInterval(Stress.full ? 900 : 120)

        while killed < total, Date() < deadline {
            let count = Swift.min(batchSize, total - killed)
            var batch: [(child: ChildProcess, killAt: Date)] = []
            for _ in 0..<count {
                let child = try ChildProcess(product: "orientationctl", arguments: ["--address", fixture.bus.address, "monitor"],
                                             directory: fixture.bus.directory)
                let delay = Double(Int.random(in: 0...maxDelayMs, using: &random)) / 1000
                batch.append((child, Date().addingTimeInterval(delay)))
            }
            var alive = batch
            while !alive.isEmpty {
                let now = Date()
                // Rotations keep signals flowing to the started monitors.
                if now.timeIntervalSince(lastRotation) > 0.03 {
                    fixture.hold(poses[poseIndex % poses.count], durationMs: 700)
                    poseIndex += 1
                    lastRotation = now
                }
                for (index, entry) in alive.enumerated().reversed() where entry.killAt <= now {
                    let output = entry.child.stdout
                    let phase = output.contains("changed:") ? "receiving signals"
                        : output.contains("state:") ? "started" : entry.child.process.isRunning ? "before Start returned" : "exited early"
                    phases[phase, default: 0] += 1
                    entry.child.signal(SIGKILL)
                    alive.remove(at: index)
                }
                peer.waitUntil(seconds: 0.002) { false }
                peer.clearSignals()
            }
            for entry in batch {
                #expect(entry.child.waitForExit() != nil)
                try? FileManager.default.removeItem(atPath: entry.child.stdoutPath)
                try? FileManager.default.removeItem(atPath: entry.child.stderrPath)
            }
            killed += count
            #expect(fixture.daemon.process.isRunning, "orientationd died after \(killed) kills: \(fixture.daemon.stderr.suffix(2000))")
            guard fixture.daemon.process.isRunning else { return }
            rss.add(Stress.rssKB(pid))
        }
        #expect(killed == total, "only \(killed) of \(total) processes within the time limit")

        // Afterwards: every client gone, nothing started, the sensor not read.
        let settled = peer.waitUntil(seconds: 20) { (try? peer.managerProperty("ActiveClients")) == .uint32(0) }
        #expect(settled, "ActiveClients is \(String(describing: try? peer.managerProperty("ActiveClients")))")
        #expect(peer.waitUntil(seconds: 20) { Self.clientNodes(peer).isEmpty }, "client objects left: \(Self.clientNodes(peer))")
        #expect(fixture.drained())
        let before = try peer.managerProperty("Orientation")
        let other: DaemonFixture.Pose = before == .string("left-up") ? .rightUp : .leftUp
        fixture.hold(other, durationMs: 2000)
        #expect(fixture.drained())
        #expect(try peer.managerProperty("Orientation") == before, "the sensor was still read with no client started")
        #expect(waitUntil(seconds: 10) { Stress.fdCount(pid) == baselineFds }, "fds: \(Stress.fdCount(pid) ?? -1), at start \(baselineFds)")
        fds.add(Stress.fdCount(pid))
        rss.add(Stress.rssKB(pid))

        let seconds = Date().timeIntervalSince(started)
        Stress.report(Self.campaign, "\(killed) monitor processes SIGKILLed in \(String(format: "%.1f", seconds)) s; moment of the kill: "
                      + phases.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Stress.report(Self.campaign, "afterwards: client objects \(Self.clientNodes(peer).count), ActiveClients \(String(describing: try? peer.managerProperty("ActiveClients"))), "
                      + "a 2 s rotation written → Orientation unchanged (\(before)); \(fds.summary); \(rss.summary)")
        if Stress.full {
            // With a thousand kills every moment of a client's life is hit.
            #expect((phases["before Start returned"] ?? 0) > 0 && (phases["receiving signals"] ?? 0) > 0, "\(phases)")
        }
    }

    /// The client numbers listed under /org/orientationd/Orientation1/Client (none when
    /// the node is gone: UnknownObject); ["?"] when the daemon does not answer.
    static func clientNodes(_ peer: Peer) -> [String] {
        let xml: String
        do {
            xml = try peer.call(Peer.manager + "/Client", "org.freedesktop.DBus.Introspectable", "Introspect").first?.stringValue ?? "?"
        } catch let error as BusError where error.name == "org.freedesktop.DBus.Error.UnknownObject" {
            return []
        } catch {
            return ["? \(error)"]
        }
        return xml.components(separatedBy: "<node name=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
    }
}
