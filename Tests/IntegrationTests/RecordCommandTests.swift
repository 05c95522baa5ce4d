import Foundation
import Testing
import TestSupport

/// `orientationctl record` under umockdev: the daemon's discovery and backends, as a trace.
@Suite struct RecordCommandTests {
    @Test func recordsTheAccelerometerAfterScaleAndMountMatrix() throws {
        let fixture = try SensorDaemonFixture()
        // left-up in the sensor's frame; the mount matrix turns it into right-up.
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("left-up"),
                                                   extraProperties: ["ACCEL_MOUNT_MATRIX": "-1, 0, 0; 0, -1, 0; 0, 0, 1"]))
        let output = fixture.bus.directory + "/trace.csv"
        let record = try ChildProcess.run(product: "orientationctl", arguments: ["record", "--seconds", "0.6", "--output", output],
                                          directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stderr.contains("recorded"), "\(record.stderr)")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("# orientationctl record: accel_3d (iio:device0) (iio-poll)") == true, "\(lines)")
        let samples = lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(samples.count >= 3, "\(lines)")
        for s in samples {
            #expect(s.count == 4)
            #expect(abs(s[1] + 9.80665) < 0.001 && abs(s[2]) < 0.001 && abs(s[3]) < 0.001, "\(s)")
        }
        #expect(samples.first?.first == 0)
        // And it replays: right-up.
        let replay = try ChildProcess.run(product: "orientationctl", arguments: ["replay", output], directory: fixture.bus.directory)
        #expect(replay.stdout.hasPrefix("0,right-up,"), "\(replay.stdout)")
    }

    @Test func recordsTheGyroscopeBesideTheTraceAfterItsScaleAndMountMatrix() throws {
        let fixture = try SensorDaemonFixture()
        // 100 counts at 0.001 rad/s about x, with the mount matrix turning x into -x.
        try fixture.testbed.add(SensorGyroscopeTests.imu(gyroscope: [
            "in_anglvel_x_raw": "100", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0", "in_anglvel_scale": "0.001",
            "in_anglvel_mount_matrix": "-1, 0, 0; 0, -1, 0; 0, 0, 1"]))
        let output = fixture.bus.directory + "/trace.csv"
        let record = try ChildProcess.run(product: "orientationctl", arguments: ["record", "--seconds", "0.6", "--output", output],
                                          directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stderr.contains("from its gyroscope"), "\(record.stderr)")
        let lines = try String(contentsOfFile: fixture.bus.directory + "/gyro/trace.csv", encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("# orientationctl record: accel_3d (iio:device0); t_ms,x,y,z in rad/s") == true, "\(lines)")
        let rates = lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(rates.count >= 3, "\(lines)")
        for r in rates { #expect(r.count == 4 && abs(r[1] + 0.1) < 1e-6 && r[2] == 0 && r[3] == 0, "\(r)") }
        // Both replay: the gyroscope beside the trace is read back (its name in the log
        // of a daemon that plays them would be "Replay of .../gyro/trace.csv").
        let replay = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--explain", output], directory: fixture.bus.directory)
        #expect(replay.status == 0 && replay.stdout.contains("fused with the gyroscope"), "\(replay.stdout)\n\(replay.stderr)")
    }

    /// evdev frames read together (a busy reader) keep the times the kernel stamped them
    /// with (CLOCK_REALTIME, the default, moved onto the monotonic clock): five frames
    /// 20 ms apart, written at once, are recorded 20 ms apart, not at one instant.
    @Test func evdevFramesReadTogetherKeepTheirOwnTimes() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.inputParent())
        try fixture.testbed.add(FakeDevice.inputEvent())
        let output = fixture.bus.directory + "/trace.csv"
        let record = try ChildProcess(product: "orientationctl", arguments: ["record", "--output", output],
                                      directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(waitUntil(seconds: 10) { record.stderr.contains("using") }, "\(record.stderr)")
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowNs = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let frames = (0..<5).flatMap { k in FakeDevice.inputFrame(0, -1000, Int32(k), timeNs: nowNs - Int64(4 - k) * 20_000_000) }
        try fixture.testbed.writeNode(FakeDevice.eventNode, frames)
        func lines() -> [[Double]] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
                .map { $0.split(separator: ",").compactMap { Double($0) } }
        }
        #expect(waitUntil(seconds: 10) { lines().count >= 5 }, "\(lines()) \(record.stderr)")
        record.signal(SIGTERM)
        #expect(record.waitForExit() == 0, "\(record.stderr)")
        let times = lines().suffix(5).map { $0[0] }
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 20) <= 1 }, "\(lines())")
    }

    /// A trace that cannot be written (here /dev/full: every write fails with ENOSPC) is
    /// one clear line and status 1, never "recorded" with the samples lost.
    @Test func aTraceThatCannotBeWrittenStopsTheRecording() throws {
        let fixture = try SensorDaemonFixture()
        try fixture.testbed.add(FakeDevice.iioPoll(raw: FakeDevice.raw("normal")))
        let record = try ChildProcess.run(product: "orientationctl", arguments: ["record", "--seconds", "0.6", "--output", "/dev/full"],
                                          directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(record.status == 1, "\(record.stderr)")
        #expect(record.stderr.contains("cannot write '/dev/full': No space left on device: recording stopped"), "\(record.stderr)")
        #expect(!record.stderr.contains("recorded"), "\(record.stderr)")
    }

    @Test func noAccelerometerIsAClearError() throws {
        let fixture = try SensorDaemonFixture()
        let record = try ChildProcess.run(product: "orientationctl", arguments: ["record", "--seconds", "1"],
                                          directory: fixture.bus.directory, environment: fixture.testbed.environment)
        #expect(record.status == 1)
        #expect(record.stderr.contains("no accelerometer can be read"), "\(record.stderr)")
        // It gives up at once: nothing says it waits for one (the daemon does, not record).
        #expect(!record.stderr.contains("waiting"), "\(record.stderr)")
        let bad = try ChildProcess.run(product: "orientationctl", arguments: ["record", "--seconds", "soon"], directory: fixture.bus.directory)
        #expect(bad.status == 2)
    }
}
