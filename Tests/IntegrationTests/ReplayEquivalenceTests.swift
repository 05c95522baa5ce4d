import DBus
import Foundation
import Testing
import Posix
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
        let peer = try Peer.withStartedClient(on: bus, daemon: daemon)
        #expect(peer.waitUntil(seconds: 10) { (try? peer.managerProperty("Orientation")) == .string("left-up") },
                "stderr:\n\(daemon.stderr)")
        #expect(peer.waitUntil(seconds: 5) { !peer.orientationWillChanges().isEmpty })
        // The single reading in left-up is no change: one will-change, normal to left-up.
        #expect(peer.orientationWillChanges() == ["\(Peer.manager) OrientationWillChange normal,left-up"], "\(peer.orientationWillChanges())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Eight seconds of motion at 50 Hz, in m/s^2: upright and still, a turn to left-up held,
    /// a 200 ms flick most of the way back and again, a jog in left-up (a 0.4 g bounce at
    /// 2.8 Hz), a turn back to upright held. A little sensor noise throughout.
    static let motion: [(t: Int, x: Double, y: Double, z: Double)] = {
        func phi(_ t: Int) -> Double {
            switch t {
            case ..<1500: 0
            case ..<1900: -90 * Double(t - 1500) / 400
            case 3400..<3500: -90 + 70 * Double(t - 3400) / 100
            case 3500..<3600: -20 - 70 * Double(t - 3500) / 100
            case 6600..<7000: -90 + 90 * Double(t - 6600) / 400
            case 7000...: 0
            default: -90
            }
        }
        return stride(from: 0, to: 8500, by: 20).map { t in
            let g = 9.80665 * (4600..<6600 ~= t ? 1 + 0.4 * sin(2 * .pi * 2.8 * Double(t) / 1000) : 1)
            let p = phi(t) * .pi / 180
            let noise = 0.05 * sin(Double(t) * 1.7)
            return (t, -sin(p) * g + noise, -cos(p) * g - noise, 0.1 + noise)
        }
    }()

    @Test func anIIOBufferAtTheRecordingsTimingGivesTheChangesOfOrientationctlReplay() throws {
        // The engine command on the recording.
        let bus = try TestBus()
        let path = bus.directory + "/motion.csv"
        let raw = Self.motion.map { (t: $0.t, raw: (Int(($0.x * 100).rounded()), Int(($0.y * 100).rounded()), Int(($0.z * 100).rounded()))) }
        // The trace holds exactly what the daemon will read: raw counts at scale 0.01.
        try raw.map { "\($0.t),\(Double($0.raw.0) / 100),\(Double($0.raw.1) / 100),\(Double($0.raw.2) / 100)" }
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let replayed = try ChildProcess.run(product: "orientationctl", arguments: ["replay", path], directory: bus.directory)
        #expect(replayed.status == 0)
        var expected: [(Int64, String)] = []
        for line in replayed.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",")
            let o = String(fields[1])
            if expected.last?.1 != o { expected.append((Int64(fields[0]) ?? -1, o)) }
        }
        #expect(expected.map(\.1) == ["normal", "left-up", "normal"], "orientationctl replay: \(replayed.stdout)")

        // The daemon reading the same frames from an IIO buffer, sent at their times.
        let (fixture, peer) = try SensorDaemonFixture.reading(
            FakeDevice.iioBuffer(raw: (0, -981, 10), scale: "0.01"))
        #expect(peer.waitUntil(seconds: 5) { (try? peer.managerProperty("Orientation")) == .string("normal") },
                "stderr:\n\(fixture.stderr)")
        peer.clearSignals()
        let start = try fixture.testbed.play(FakeDevice.devnode(0), frames: raw)
        func changes() -> [(Int64, String)] {
            zip(peer.signals, peer.signalTimesMs).compactMap { message, time in
                let s = peer.summary(message)
                guard message.path == Peer.manager, let r = s.range(of: "PropertiesChanged Orientation=") else { return nil }
                return (time - start, String(s[r.upperBound...].prefix { $0 != "," }))
            }
        }
        let wanted = expected.dropFirst().map(\.1)
        #expect(peer.waitUntil(seconds: 20) { changes().map(\.1) == wanted && MonotonicClock.milliseconds() > start + 8600 },
                "daemon: \(changes()), replay: \(expected); stderr:\n\(fixture.stderr)")
        #expect(changes().map(\.1) == wanted, "daemon: \(changes()), replay: \(expected)")
        for (daemon, replay) in zip(changes(), expected.dropFirst()) {
            #expect(abs(daemon.0 - replay.0) <= 50, "\(daemon.1): daemon at \(daemon.0) ms, replay at \(replay.0) ms")
        }
    }

    @Test func theReplaySensorPlaysTheGyroscopeRecordedBesideTheTrace() throws {
        // Two seconds upright first, for the client to start, then the wave, then a turn
        // to right-up held: with the gyroscope the daemon, as orientationctl replay,
        // follows the turn and not the wave.
        let (wave, gyro) = ReplayCommandTests.wave()
        func shifted(_ text: String) -> String {
            text.split(separator: "\n").map { line in
                var fields = line.split(separator: ",").map(String.init)
                fields[0] = String((Int(fields[0]) ?? 0) + 2000)
                return fields.joined(separator: ",")
            }.joined(separator: "\n") + "\n"
        }
        var lead = "", leadGyro = ""
        for t in stride(from: 0, to: 2000, by: 10) {
            lead += "\(t),0,-9.81,0\n"
            leadGyro += "\(t),\(0.002 * sin(Double(t))),0,0\n"
        }
        var turn = "", turnGyro = ""
        for t in stride(from: 6000, to: 7000, by: 10) {
            turn += "\(t),-9.81,0,0\n"
            turnGyro += "\(t),\(0.002 * sin(Double(t))),0,0\n"
        }
        let bus = try TestBus()
        let path = bus.directory + "/wave.csv"
        try FileManager.default.createDirectory(atPath: bus.directory + "/gyro", withIntermediateDirectories: true)
        try (lead + shifted(wave) + turn).write(toFile: path, atomically: true, encoding: .utf8)
        try (leadGyro + shifted(gyro) + turnGyro).write(toFile: bus.directory + "/gyro/wave.csv", atomically: true, encoding: .utf8)
        let replayed = try ChildProcess.run(product: "orientationctl", arguments: ["replay", path], directory: bus.directory)
        #expect(replayed.stdout.split(separator: "\n").map { $0.split(separator: ",")[1] } == ["normal", "right-up"],
                "\(replayed.stdout)")

        let daemon = try ChildProcess(product: "orientationd", arguments: ["--address", bus.address, "--sensor", "replay:" + path],
                                      directory: bus.directory)
        let peer = try Peer.withStartedClient(on: bus, daemon: daemon)
        #expect(try peer.managerProperty("GyroscopeName") == .string("Replay of gyro/wave.csv"))
        #expect(peer.waitUntil(seconds: 10) { peer.orientationWillChanges().contains { $0.hasSuffix("right-up") } }, "stderr:\n\(daemon.stderr)")
        #expect(peer.orientationWillChanges() == ["\(Peer.manager) OrientationWillChange normal,right-up"], "\(peer.orientationWillChanges())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
