import Foundation
import Testing
import TestSupport

/// `orientationctl replay`: the engine over a trace, as the scorer runs it.
@Suite struct ReplayCommandTests {
    let directory: String
    init() throws { directory = try makeTemporaryDirectory(prefix: "orientationd-replay") }

    /// 1 s upright, then 1.5 s turned left-up, at 50 Hz.
    func writeTrace(extraLines: String = "") throws -> String {
        var text = "# a comment\n\n"
        for i in 0..<50 { text += "\(i * 20),0.00,-9.81,0.00\n" }
        text += extraLines
        for i in 50..<125 { text += "\(i * 20),9.81,0.00,0.00\n" }
        let path = directory + "/trace.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func printsEachChangeOfState() throws {
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["replay", try writeTrace()], directory: directory)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "0,normal,vertical")
        #expect(lines.count == 2)
        let last = lines.last?.split(separator: ",").map(String.init) ?? []
        #expect(last.count == 3 && last[1] == "left-up" && last[2] == "vertical")
        // Decided after the turn (t = 1000 ms), within the engine's settle time.
        let t = Int(last.first ?? "") ?? -1
        #expect(t >= 1000 && t <= 1400)
    }

    /// A trace is a recording: its gap is a dropout, not a device lying still. One reading
    /// in left-up, then nothing for 0.6 s, then upright as before: no turn.
    @Test func gapInATraceIsNoRest() throws {
        var text = ""
        for i in 0..<50 { text += "\(i * 20),0.00,-9.81,0.00\n" }
        text += "1000,9.81,0.00,0.00\n"
        for i in 80..<125 { text += "\(i * 20),0.00,-9.81,0.00\n" }
        let path = directory + "/gap.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["replay", path], directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "0,normal,vertical\n", "\(result.stdout)")
    }

    /// The example README shows: the trace in examples/traces, a quarter turn and back.
    @Test func readmeExampleTraceTurnsAndComesBack() throws {
        let result = try ChildProcess.run(product: "orientationctl",
                                          arguments: ["replay", repositoryRoot + "/examples/traces/quarter-turn.csv"], directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let orientations = result.stdout.split(separator: "\n").map { $0.split(separator: ",")[1] }
        #expect(orientations == ["normal", "left-up", "normal"], "\(result.stdout)")
    }

    /// A pass into left-up and back at 110°/s (the accelerometer calm at every reading),
    /// and the gyroscope beside it in gyro/NAME.csv, one malformed line in it.
    func writeWave() throws -> String {
        let (trace, gyro) = Self.wave()
        try FileManager.default.createDirectory(atPath: directory + "/gyro", withIntermediateDirectories: true)
        try trace.write(toFile: directory + "/wave.csv", atomically: true, encoding: .utf8)
        try ("0,0,0\n" + gyro).write(toFile: directory + "/gyro/wave.csv", atomically: true, encoding: .utf8)
        return directory + "/wave.csv"
    }

    /// The wave's accelerometer and gyroscope lines.
    static func wave() -> (trace: String, gyro: String) {
        var trace = "", gyro = ""
        for t in stride(from: 0, to: 4000, by: 10) {
            let phi = t < 1000 ? 0 : t < 2045 ? -0.11 * Double(t - 1000) : t < 3090 ? -115 + 0.11 * Double(t - 2045) : 0
            let p = phi * Double.pi / 180
            trace += "\(t),\(-sin(p) * 9.81),\(-cos(p) * 9.81),0\n"
            let rate = t >= 1000 && t < 2045 ? -0.11 : t >= 2045 && t < 3090 ? 0.11 : 0
            gyro += "\(t),\(0.002 * sin(Double(t))),0,\(rate * 1000 * Double.pi / 180)\n"
        }
        return (trace, gyro)
    }

    @Test func theGyroscopeBesideTheTraceIsFusedUnlessNoGyro() throws {
        let wave = try writeWave()
        let fused = try ChildProcess.run(product: "orientationctl", arguments: ["replay", wave], directory: directory)
        #expect(fused.status == 0)
        #expect(fused.stdout.split(separator: "\n").map { $0.split(separator: ",")[1] } == ["normal"], "\(fused.stdout)")
        #expect(fused.stderr.contains("gyro/wave.csv:1: skipped"), "\(fused.stderr)")
        let alone = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--no-gyro", wave], directory: directory)
        #expect(alone.status == 0)
        #expect(alone.stdout.contains("left-up"), "\(alone.stdout)")
        #expect(!alone.stderr.contains("gyro"), "\(alone.stderr)")
    }

    @Test func malformedLinesAreWarnedAboutAndSkipped() throws {
        let trace = try writeTrace(extraLines: "garbage\n995,nan,0,0\n996,1,2\n10,0,-9.81,0\n")
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["replay", trace], directory: directory)
        #expect(result.status == 0)
        // Lines 1-2 are a comment and a blank line, then 50 samples: the bad ones are 53-56,
        // three malformed and one back in time. The first of each kind is named, the other
        // two counted.
        for line in [53, 56] { #expect(result.stderr.contains("trace.csv:\(line): skipped: "), "no warning for line \(line):\n\(result.stderr)") }
        for line in [54, 55] { #expect(!result.stderr.contains("trace.csv:\(line):"), "\(result.stderr)") }
        #expect(result.stderr.contains("trace.csv: 2 more lines skipped (not t_ms,x,y,z), the last at line 55"), "\(result.stderr)")
        #expect(result.stdout.contains(",left-up,"))
    }

    /// A recording whose clock jumped back for a thousand lines (the accelerometer's and
    /// its gyroscope's alike): a warning each was a thousand lines on standard error. Now
    /// one per file and kind, and a count; the samples after the jump are read as before.
    @Test func aClockThatJumpedBackIsOneWarningAndACount() throws {
        var text = ""
        for i in 0...250 { text += "\(i * 20),0.00,-9.81,0.00\n" }            // 0-5000 ms
        for i in 1...1000 { text += "\(i * 5),0.00,-9.81,0.00\n" }             // back to 5-5000 ms
        for i in 251..<400 { text += "\(i * 20),9.81,0.00,0.00\n" }            // then left-up
        try FileManager.default.createDirectory(atPath: directory + "/gyro", withIntermediateDirectories: true)
        let trace = directory + "/jump.csv"
        try text.write(toFile: trace, atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "9.81", with: "0.01").write(toFile: directory + "/gyro/jump.csv", atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["replay", trace], directory: directory)
        #expect(result.status == 0)
        // (The constant gyroscope is also said to be stuck: not what this test is about.)
        let skips = result.stderr.split(separator: "\n").filter { $0.contains("skipped") }
        #expect(skips.count == 4, "\(result.stderr)")
        #expect(result.stderr.contains("jump.csv:252: skipped: t_ms 5 does not come after 5000"), "\(result.stderr)")
        #expect(result.stderr.contains("jump.csv: 999 more lines skipped (t_ms does not increase), the last at line 1251"), "\(result.stderr)")
        #expect(result.stderr.contains("gyro/jump.csv: 999 more lines skipped"), "\(result.stderr)")
        #expect(result.stdout.contains(",left-up,"), "\(result.stdout)")
    }

    @Test func explainAddsCommentLines() throws {
        let result = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--explain", try writeTrace()], directory: directory)
        #expect(result.status == 0)
        let comments = result.stdout.split(separator: "\n").filter { $0.hasPrefix("#") }
        #expect(comments.count >= 2)
    }

    @Test func configSetsTunablesAndBadConfigIsRejectedNamingTheLine() throws {
        let good = directory + "/good.conf"
        try "# slower\n[Engine]\nOrientationSettleMs = 600\nRestMs = 600\n[Sensor]\nPollIntervalMs = 100\n".write(toFile: good, atomically: true, encoding: .utf8)
        let slow = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--config", good, try writeTrace()], directory: directory)
        #expect(slow.status == 0)
        let t = Int(slow.stdout.split(separator: "\n").last?.split(separator: ",").first ?? "") ?? -1
        // The step is at 1000 ms; the default settles it after about 100 ms. Within one
        // sample interval (20 ms) of 600 ms later: the rest's first sample counts half.
        #expect(t >= 1580, "OrientationSettleMs = 600 should delay the change: \(slow.stdout)")

        let bad = directory + "/bad.conf"
        try "[Engine]\nOrientationSettleMs = 100\nNoSuchKey = 3\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let rejected = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--config", bad, try writeTrace()], directory: directory)
        #expect(rejected.status == 1)
        #expect(rejected.stderr.contains("bad.conf:3:"))
        #expect(rejected.stderr.contains("NoSuchKey"))

        let badValue = directory + "/bad-value.conf"
        try "[Engine]\nOrientationSettleMs = fast\n".write(toFile: badValue, atomically: true, encoding: .utf8)
        let rejectedValue = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--config", badValue, try writeTrace()], directory: directory)
        #expect(rejectedValue.status == 1)
        #expect(rejectedValue.stderr.contains("OrientationSettleMs"))
    }

    @Test func usageAndFileErrors() throws {
        let unknown = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--frobnicate", "x.csv"], directory: directory)
        #expect(unknown.status == 2)
        let missing = try ChildProcess.run(product: "orientationctl", arguments: ["replay", directory + "/missing.csv"], directory: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("missing.csv"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
        let help = try ChildProcess.run(product: "orientationctl", arguments: ["replay", "--help"], directory: directory)
        #expect(help.status == 0)
        #expect(help.stdout.contains("--explain"))
    }
}
