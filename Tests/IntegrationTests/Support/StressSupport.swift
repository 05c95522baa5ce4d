import Foundation
import Glibc
import TestSupport

/// The fault campaigns (Stress*Tests): short counts by default, so that they run inside
/// `make test`; `ORIENTATIOND_STRESS=full` (`make stress`) gives the full counts. Every
/// loop is bounded in count and by a deadline. Each campaign prints what it did and its
/// figures on lines starting with "stress:".
enum Stress {
    static let full = ProcessInfo.processInfo.environment["ORIENTATIOND_STRESS"] == "full"

    static func count(short: Int, full: Int) -> Int { Self.full ? full : short }

    /// A seed for the campaign's random choices: ORIENTATIOND_STRESS_SEED, or a fresh
    /// one, printed so that a failing run can be replayed.
    static func seed(_ campaign: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["ORIENTATIOND_STRESS_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        report(campaign, "mode \(full ? "full" : "short"), seed \(seed) (ORIENTATIOND_STRESS_SEED=\(seed) replays it)")
        return seed
    }

    static func report(_ campaign: String, _ text: String) {
        print("stress: [\(campaign)] \(text)")
        fflush(nil)
    }

    /// Resident set size of a process in KB (VmRSS), nil when it is gone.
    static func rssKB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    /// Number of open file descriptors of a process, nil when it is gone.
    static func fdCount(_ pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }
}

/// A series of measurements, summarised as first/last/max.
struct StressSeries {
    let name: String
    let unit: String
    private(set) var values: [Int] = []

    init(_ name: String, unit: String = "") {
        self.name = name
        self.unit = unit
    }

    mutating func add(_ value: Int?) { if let value { values.append(value) } }

    var first: Int { values.first ?? 0 }
    var last: Int { values.last ?? 0 }
    var max: Int { values.max() ?? 0 }
    var min: Int { values.min() ?? 0 }
    var summary: String { "\(name) first \(first)\(unit), last \(last)\(unit), max \(max)\(unit), min \(min)\(unit) over \(values.count) samples" }

    /// The value at a fraction of the series (the baseline after warm-up).
    func at(fraction: Double) -> Int {
        guard !values.isEmpty else { return 0 }
        return values[Swift.min(values.count - 1, Int(Double(values.count - 1) * fraction))]
    }
}

