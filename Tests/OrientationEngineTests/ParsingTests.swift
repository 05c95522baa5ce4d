import Foundation
import Testing
@testable import OrientationEngine
import TestSupport

@Suite("TraceLine")
struct TraceLineTests {
    @Test("good lines", arguments: [
        ("0,0.12,-9.69,1.52", Sample(timeMs: 0, x: 0.12, y: -9.69, z: 1.52)),
        ("100,-0.00,9.81,0", Sample(timeMs: 100, x: 0, y: 9.81, z: 0)),
        (" 250 , 1 , 2 , 3 \r", Sample(timeMs: 250, x: 1, y: 2, z: 3)),
        ("7,1e1,-2.5E-1,+3", Sample(timeMs: 7, x: 10, y: -0.25, z: 3)),
        ("-5,1,2,3", Sample(timeMs: -5, x: 1, y: 2, z: 3)),
    ])
    func good(line: String, expected: Sample) throws {
        let s = try TraceLine.parse(line[...]).get()
        #expect(s == expected)
    }

    @Test("blank lines and comments", arguments: ["", "   ", "\t\r", "# t_ms,x,y,z", "  # indented comment"])
    func ignored(line: String) throws {
        #expect(try TraceLine.parse(line[...]).get() == nil)
    }

    @Test("malformed lines", arguments: [
        "garbage", "1,2,3", "1,2,3,4,5", "1,2,3,", ",1,2,3", "1.5,1,2,3", "1,a,2,3", "1,2,,3",
        "1,nan,2,3", "1,2,NaN,3", "1,2,3,inf", "1,-inf,2,3", "1,infinity,2,3", "1,1e999,2,3",
        "1,0x1p3,2,3", "1,1,2,3 4", "1;2;3;4", "1,1.2.3,2,3", "99999999999999999999,1,2,3",
    ])
    func malformed(line: String) {
        switch TraceLine.parse(line[...]) {
        case .success(let s): Issue.record("'\(line)' parsed as \(String(describing: s))")
        case .failure(let e): #expect(!e.message.isEmpty)
        }
    }

    @Test("errors say what is wrong")
    func messages() {
        if case .failure(let e) = TraceLine.parse("1,2,3") { #expect(e.message.contains("4 fields")) }
        if case .failure(let e) = TraceLine.parse("1,2,nan,3") {
            #expect(e.message.contains("y"))
            #expect(e.message.contains("nan"))
        }
        if case .failure(let e) = TraceLine.parse("x,1,2,3") { #expect(e.message.contains("t_ms")) }
    }

    @Test("timestamps that do not increase are the caller's business")
    func nonIncreasing() throws {
        #expect(try TraceLine.parse("5,1,2,3").get()?.timeMs == 5)
        #expect(try TraceLine.parse("3,1,2,3").get()?.timeMs == 3)
    }
}

@Suite("TraceReader")
struct TraceReaderTests {
    /// A recording whose clock jumped back for a thousand lines, with a few malformed and
    /// non-finite lines among them: one warning per kind, each naming its first line, and
    /// a count of the rest; the samples that increase are all read.
    @Test("the first skipped line of each kind is warned about, the rest are counted")
    func onceAKind() {
        var lines = ["# t_ms,x,y,z", "0,0,-9.81,0", "5000,0,-9.81,0"]
        lines += (1...1000).map { "\($0),0,-9.81,0" }          // lines 4-1003: back in time
        lines += ["garbage", "5010,1e400,0,0", "5020,1,2", "5030,0,-1e999,0", "5040,0,-9.81,0"]
        var reader = TraceReader()
        var warnings: [TraceReader.Skipped] = []
        var samples: [Int64] = []
        for line in lines {
            if let s = reader.read(Substring(line), warn: { warnings.append($0) }) { samples.append(s.timeMs) }
        }
        #expect(samples == [0, 5000, 5040])
        #expect(warnings.map(\.line) == [4, 1004, 1005])
        #expect(warnings.map(\.problem) == [.notIncreasing, .malformed, .notFinite])
        #expect(warnings[0].detail == "t_ms 1 does not come after 5000")
        let tallies = reader.takeTallies()
        #expect(tallies == [TraceReader.Tally(problem: .malformed, count: 1, lastLine: 1006),
                            TraceReader.Tally(problem: .notFinite, count: 1, lastLine: 1007),
                            TraceReader.Tally(problem: .notIncreasing, count: 999, lastLine: 1003)])
        #expect(tallies[2].description == "999 more lines skipped (t_ms does not increase), the last at line 1003")
        #expect(tallies[0].description == "1 more line skipped (not t_ms,x,y,z), the last at line 1006")
        #expect(reader.takeTallies().isEmpty)
        // Counted from then on, never warned about again.
        _ = reader.read("junk", warn: { warnings.append($0) })
        reader.skipLine(.tooLong, "longer than 4096 bytes", warn: { warnings.append($0) })
        #expect(warnings.count == 4 && warnings[3].problem == .tooLong && warnings[3].line == 1010)
        #expect(reader.takeTallies() == [TraceReader.Tally(problem: .malformed, count: 1, lastLine: 1009)])
        #expect(reader.lineNumber == 1010 && reader.lastTimeMs == 5040)
    }
}

@Suite("EngineTunables")
struct TunablesTests {
    @Test("every key has a value, documentation and round-trips through set")
    func keys() throws {
        #expect(Set(EngineTunables.keys).count == EngineTunables.keys.count)
        for key in EngineTunables.keys {
            let v = try #require(EngineTunables.default.value(forKey: key))
            let doc = try #require(EngineTunables.documentation(forKey: key))
            #expect(doc.hasPrefix(key))
            var t = EngineTunables.default
            try t.set(key: key, value: String(v))
            #expect(t == .default, "\(key)")
        }
    }

    @Test("the example configuration lists every tunable, commented out, at its default")
    func exampleConfigurationShowsTheDefaults() throws {
        let path = repositoryRoot + "/conf/orientationd.conf"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(text.range(of: "\n[Engine]\n"), "no [Engine] section in \(path)")
        let section = text[start.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("[") }
        var shown: [String: String] = [:]
        for line in section where line.hasPrefix("#") {
            let pair = line.dropFirst().split(separator: "=", maxSplits: 1)
            if pair.count == 2, EngineTunables.keys.contains(String(pair[0])) { shown[String(pair[0])] = String(pair[1]) }
        }
        for key in EngineTunables.keys {
            let value = try #require(EngineTunables.default.value(forKey: key))
            let listed = try #require(shown[key], "\(key) is not in the example configuration")
            #expect(Double(listed) == value, "\(key): the example says \(listed), the default is \(value)")
        }
    }

    @Test("set changes the value")
    func set() throws {
        var t = EngineTunables.default
        try t.set(key: "OrientationSettleMs", value: " 250 ")
        #expect(t.orientationSettleMs == 250)
        try t.set(key: "GravityFilterMs", value: "55.5")
        #expect(t.gravityFilterMs == 55.5)
        try t.set(key: "OrientationHysteresisDeg", value: "1.2e1")
        #expect(t.orientationHysteresisDeg == 12)
        #expect(t != .default)
    }

    @Test("unknown key")
    func unknownKey() {
        var t = EngineTunables.default
        #expect(throws: TunableError.self) { try t.set(key: "SettleTime", value: "100") }
        do {
            try t.set(key: "SettleTime", value: "100")
        } catch {
            #expect(error.key == "SettleTime")
            #expect(error.description.contains("SettleTime"))
            #expect(error.description.contains("unknown key"))
            // Not a near miss of any key, and not all 58 of them either.
            #expect(!error.description.contains("GravityFilterMs"), "\(error.description)")
            #expect(!error.description.contains("did you mean"), "\(error.description)")
        }
        #expect(t == .default)
    }

    /// A misspelt key (case, a letter or two) is answered with the key it misses.
    @Test("near miss", arguments: [
        ("OrientationSettleMS", "OrientationSettleMs"), ("orientationsettlems", "OrientationSettleMs"),
        ("OrientationSetleMs", "OrientationSettleMs"), ("EdgeSettleMsec", "EdgeSettleMs"), ("RestMS", "RestMs"),
    ])
    func nearMiss(typed: String, meant: String) {
        var t = EngineTunables.default
        do {
            try t.set(key: typed, value: "100")
            Issue.record("\(typed) was accepted")
        } catch {
            #expect(error.description.contains("did you mean \(meant)?"), "\(error.description)")
        }
        #expect(t == .default)
    }

    @Test("bad values", arguments: [
        ("OrientationSettleMs", ""), ("OrientationSettleMs", "abc"), ("OrientationSettleMs", "nan"),
        ("OrientationSettleMs", "inf"), ("OrientationSettleMs", "-1"), ("OrientationSettleMs", "1,5"),
        ("OrientationSettleMs", "100ms"), ("OrientationHysteresisDeg", "45"), ("OrientationHysteresisDeg", "90"),
        ("MaxElevationDeg", "91"), ("TiltHysteresisDeg", "20"), ("StandardGravity", "0"),
        ("GravityFilterMs", "1e999"), ("AccelerationToleranceG", "0"),
    ])
    func badValues(key: String, value: String) {
        var t = EngineTunables.default
        do {
            try t.set(key: key, value: value)
            Issue.record("\(key) = '\(value)' accepted")
        } catch {
            #expect(error.key == key)
            #expect(error.value == value)
            #expect(error.description.contains(key))
            #expect(error.description.contains("'\(value)'"))
        }
        #expect(t == .default)
    }
}
