import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Fault campaigns 4 and 5: SIGTERM while an IIO buffer is enabled (the buffer is
/// disabled again, exit 0), and the bus going away under load (a clear message and exit
/// status 1).
@Suite(.serialized) struct StressShutdownTests {
    @Test func sigtermWhileTheBufferIsEnabledDisablesIt() throws {
        let campaign = "SIGTERM with the buffer on"
        let runs = Stress.count(short: 2, full: 20)
        _ = Stress.seed(campaign)
        let started = Date()
        let fixture = try SensorDaemonFixture()
        let syspath = FakeDevice.syspath(0), node = FakeDevice.devnode(0)
        try fixture.testbed.add(FakeDevice.iioBuffer(raw: FakeDevice.raw("normal")))
        var exitCodes: [Int32: Int] = [:]
        var disabled = 0
        var stopMs: [Double] = []
        for run in 0..<runs {
            let peer = try fixture.start()
            let daemon = try #require(fixture.daemon)
            #expect(try peer.managerProperty("SensorBackend") == .string("iio-buffer"), "stderr:\n\(fixture.stderr)")
            // A few started clients, one or two of them on other connections.
            var owners = [peer]
            for _ in 0..<(run % 3) { owners.append(try Peer(bus: fixture.bus, watchManager: false)) }
            for owner in owners { _ = try SensorPollTests.startClient(owner) }
            #expect(fixture.testbed.attribute(syspath, "buffer/enable") == "1")
            // Frames flowing; every other run, still flowing when the signal comes.
            let target = ["left-up", "right-up", "bottom-up"][run % 3]
            #expect(try SensorBufferTests.stream(fixture, peer, FakeDevice.frameS16(FakeDevice.raw(target)), until: target),
                    "stderr:\n\(fixture.stderr)")
            if run % 2 == 1 {
                for _ in 0..<20 { try fixture.testbed.writeNode(node, FakeDevice.frameS16(FakeDevice.raw("normal"))) }
            }
            let signalled = Date()
            daemon.signal(SIGTERM)
            let status = daemon.waitForExit(seconds: 10)
            stopMs.append(Date().timeIntervalSince(signalled) * 1000)
            exitCodes[status ?? -1, default: 0] += 1
            #expect(status == 0, "run \(run): exit \(String(describing: status)); stderr:\n\(fixture.stderr.suffix(2000))")
            let enable = fixture.testbed.attribute(syspath, "buffer/enable")
            if enable == "0" { disabled += 1 }
            #expect(enable == "0", "run \(run): buffer/enable is \(enable ?? "missing") after SIGTERM")
            guard status == 0, enable == "0" else { break }
        }
        Stress.report(campaign, "\(runs) daemons SIGTERMed with the buffer enabled and 1–3 started clients in "
                      + String(format: "%.1f s", Date().timeIntervalSince(started))
                      + ": exit statuses \(exitCodes), buffer/enable 0 afterwards \(disabled)/\(runs), SIGTERM → exit max "
                      + String(format: "%.0f ms", stopMs.max() ?? 0))
    }

    @Test func busGoingAwayUnderLoadIsAClearErrorExit() throws {
        let campaign = "bus lost under load"
        let rounds = Stress.count(short: 1, full: 5)
        let connections = Stress.count(short: 5, full: 20)
        let perConnection = Stress.count(short: 20, full: 50)
        _ = Stress.seed(campaign)
        var exitMs: [Double] = []
        var statuses: [Int32: Int] = [:]
        for round in 0..<rounds {
            let fixture = try DaemonFixture()
            let peer = try fixture.peer()
            fixture.hold(.normal, durationMs: 300)
            var peers: [Peer] = []
            for _ in 0..<connections {
                let owner = try Peer(bus: fixture.bus, watchManager: false)
                for _ in 0..<perConnection { _ = try SensorPollTests.startClient(owner) }
                peers.append(owner)
            }
            #expect(try peer.managerProperty("ActiveClients") == .uint32(UInt32(connections * perConnection)))
            // A burst of rotations: the daemon is busy sending to every client when the
            // bus goes.
            let poses: [DaemonFixture.Pose] = [.leftUp, .bottomUp, .rightUp, .normal]
            for index in 0..<12 { fixture.hold(poses[index % poses.count], durationMs: 700) }
            let busPID = try #require(pidOfBus(fixture.bus))
            let killed = Date()
            kill(busPID, SIGKILL)
            let status = fixture.daemon.waitForExit(seconds: 20)
            exitMs.append(Date().timeIntervalSince(killed) * 1000)
            statuses[status ?? -1, default: 0] += 1
            #expect(status == 1, "round \(round): exit \(String(describing: status)); stderr:\n\(fixture.daemon.stderr.suffix(2000))")
            let message = fixture.daemon.stderr.split(separator: "\n").last { $0.contains("lost the connection") }
            #expect(message != nil, "no clear message; stderr:\n\(fixture.daemon.stderr.suffix(2000))")
            if round == 0, let message { Stress.report(campaign, "the daemon's last words: \(message)") }
            withExtendedLifetime(peers) {}
        }
        Stress.report(campaign, "\(rounds) bus(es) SIGKILLed under \(connections * perConnection) started clients on \(connections) connections and a burst of rotations: "
                      + "exit statuses \(statuses), bus kill → daemon exit max " + String(format: "%.0f ms", exitMs.max() ?? 0))
    }
}
