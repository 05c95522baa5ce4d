import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Fault campaign 2: the sensor in use removed and added again, over and over, while
/// clients are started (and others start, stop and close meanwhile), alternating an
/// IIO polling device and an IIO buffer device. The daemon survives, resumes each time
/// (HasSensor, Orientation of the new device's reading), and its descriptors and RSS,
/// measured each cycle while no sensor is present, stay flat.
@Suite(.serialized) struct StressHotplugTests {
    static let campaign = "sensor hotplug"

    @Test func sensorRemovedAndAddedWhileClientsAreStarted() throws {
        let cycles = Stress.count(short: 6, full: 100)
        var random = SplitMix(seed: Stress.seed(Self.campaign))
        let started = Date()
        let fixture = try SensorDaemonFixture()
        var syspath = FakeDevice.syspath(0)
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let peer = try fixture.start()
        let pid = try #require(fixture.daemon?.pid)
        let owner = try Peer(bus: fixture.bus, watchManager: false)
        var kept: [String] = []
        for _ in 0..<3 { kept.append(try SensorPollTests.startClient(owner)) }
        #expect(try peer.managerProperty("Orientation") == .string("normal"))

        var fds = StressSeries("daemon fds (no sensor)"), rss = StressSeries("daemon RSS (no sensor)", unit: " KB")
        var resumeMs: [Double] = []
        var transient: [String] = []
        var previous = "normal"
        var completed = 0
        let deadline = Date().addingTimeInterval(Stress.full ? 600 : 90)
        for cycle in 0..<cycles where Date() < deadline {
            // Removed while started: HasSensor false, Orientation undefined.
            try fixture.testbed.remove(syspath)
            guard peer.waitUntil(seconds: 10, { (try? peer.managerProperty("HasSensor")) == .bool(false) }) else {
                Issue.record("cycle \(cycle): HasSensor still true after removal; stderr:\n\(fixture.stderr.suffix(3000))")
                break
            }
            #expect(try peer.managerProperty("Orientation") == .string("undefined"))
            // A client started and one closed while there is no sensor.
            transient.append(try SensorPollTests.startClient(owner))
            if transient.count > 4 { try owner.call(transient.removeFirst(), Peer.clientInterface, "Close") }
            fds.add(Stress.fdCount(pid))
            rss.add(Stress.rssKB(pid))

            // Added again, with another reading, as a polled or a buffered device.
            let orientation = ["left-up", "bottom-up", "right-up", "normal"].filter { $0 != previous }.randomElement(using: &random)!
            let buffered = cycle % 2 == 1
            // umockdev cannot create a removed device's /dev node again: each buffer
            // device gets a number of its own.
            let number = buffered ? 1 + cycle / 2 : 0
            syspath = FakeDevice.syspath(number)
            let addedAt = Date()
            try fixture.testbed.add(buffered ? FakeDevice.iioBuffer(number: number, raw: FakeDevice.raw(orientation))
                                             : FakeDevice.iioPoll(number: number, raw: FakeDevice.raw(orientation)))
            let resumed = peer.waitUntil(seconds: 10) {
                (try? peer.managerProperty("HasSensor")) == .bool(true) && (try? peer.managerProperty("Orientation")) == .string(orientation)
            }
            guard resumed else {
                Issue.record("cycle \(cycle): did not resume with \(orientation) (\(buffered ? "buffer" : "poll")); stderr:\n\(fixture.stderr.suffix(3000))")
                break
            }
            resumeMs.append(Date().timeIntervalSince(addedAt) * 1000)
            #expect(try peer.managerProperty("SensorBackend") == .string(buffered ? "iio-buffer" : "iio-poll"))
            if buffered { #expect(fixture.testbed.attribute(syspath, "buffer/enable") == "1") }
            // A stop and a start meanwhile, on a kept client.
            let toggled = kept[cycle % kept.count]
            try owner.call(toggled, Peer.clientInterface, "Stop")
            try owner.call(toggled, Peer.clientInterface, "Start")
            #expect(try owner.get(toggled, Peer.clientInterface, "DeviceOrientation") == .string(orientation))
            previous = orientation
            completed += 1
            peer.clearSignals()
            owner.clearSignals()
            guard fixture.isRunning else { break }
        }
        #expect(fixture.isRunning, "orientationd died; stderr:\n\(fixture.stderr.suffix(3000))")
        #expect(completed == cycles, "\(completed) of \(cycles) cycles within the time limit")
        #expect(try peer.managerProperty("ActiveClients") == .uint32(UInt32(kept.count + transient.count)))

        let sorted = resumeMs.sorted()
        Stress.report(Self.campaign, "\(completed) remove/add cycles (poll and buffer devices alternating) with \(kept.count)+ started clients in "
                      + String(format: "%.1f s; add → resumed median %.0f ms, max %.0f ms", Date().timeIntervalSince(started),
                               sorted.isEmpty ? 0 : sorted[sorted.count / 2], sorted.last ?? 0))
        Stress.report(Self.campaign, "\(fds.summary); \(rss.summary)")
        // Flat: the descriptors come back to the same count each time; RSS, after the
        // first cycles (allocator warm-up), grows by less than 1 MB.
        #expect(fds.last == fds.first && fds.max <= fds.first + 1, "\(fds.values)")
        if Stress.full {
            #expect(rss.last - rss.at(fraction: 0.2) < 1024, "\(rss.values)")
        }
    }
}
