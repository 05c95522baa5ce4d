// Engine throughput benchmark: feeds the dev traces (or, without them, motion it makes
// itself) through OrientationEngine repeatedly
// and prints samples per second on one core. Built by bench.sh (release, -O, WMO, the
// engine as its own module as in the SwiftPM build).
import Glibc
import OrientationEngine
import TestSupport

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    if fd < 0 { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A workload made here, for a machine without the labelled traces (they are evaluation
/// data, not part of the repository): 40 recordings of 60 s at 100 Hz, each a hand that
/// holds the device in one orientation for 2-5 s, turns it a quarter in 0.5 s, and trembles
/// (noise of 0.3 m/s^2), deterministic. The engine does the same work per sample on it as
/// on real motion: every sample goes through every filter and test.
func generatedTraces() -> [[Sample]] {
    var rng = SplitMix(seed: 1)
    func uniform() -> Double { rng.uniform() }
    var out: [[Sample]] = []
    for _ in 0..<40 {
        var samples: [Sample] = []
        // phi: where the hand holds the device; a turn goes from `from` to `to` over 500 ms.
        var phi = 0.0, from = 0.0, to = 0.0, turnStart = -Double.infinity
        var nextTurn = 2000 + 3000 * uniform()
        for k in 0..<6000 {
            let t = Double(k) * 10
            if t >= nextTurn {
                from = phi
                to = phi + (uniform() < 0.5 ? 90 : -90)
                turnStart = t
                nextTurn = t + 2500 + 3000 * uniform()
            }
            let u = min(1, (t - turnStart) / 500)
            phi = from + (to - from) * u
            let p = phi * Double.pi / 180
            let theta = 20 * Double.pi / 180
            samples.append(Sample(timeMs: Int64(t),
                                  x: -sin(p) * cos(theta) * 9.81 + 0.3 * (uniform() * 2 - 1),
                                  y: -cos(p) * cos(theta) * 9.81 + 0.3 * (uniform() * 2 - 1),
                                  z: sin(theta) * 9.81 + 0.3 * (uniform() * 2 - 1)))
        }
        out.append(samples)
    }
    return out
}

let args = Array(CommandLine.arguments.dropFirst())
guard let dir = args.first else {
    print("usage: bench TRACES_DIR [MIN_SAMPLES]")
    exit(2)
}
let minSamples = args.count > 1 ? Int(args[1]) ?? 50_000_000 : 50_000_000

var traces: [[Sample]] = []
var workload = "the traces in \(dir)"
var names: [String] = []
if let d = opendir(dir) {
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasSuffix(".csv") { names.append(name) }
    }
    closedir(d)
}
for name in names.sorted() {
    guard let text = readFile(dir + "/" + name) else { continue }
    var samples: [Sample] = []
    for line in text.split(separator: "\n") {
        if case .success(let s?) = TraceLine.parse(line) { samples.append(s) }
    }
    traces.append(samples)
}
if traces.allSatisfy({ $0.isEmpty }) {
    traces = generatedTraces()
    workload = "generated motion (no traces in \(dir))"
}
let perPass = traces.reduce(0) { $0 + $1.count }

func pass() -> Int {
    var changes = 0
    for samples in traces {
        var engine = OrientationEngine()
        for s in samples where engine.feed(s) { changes += 1 }
    }
    return changes
}

_ = pass()  // warm up
var best = 0.0
var checksum = 0
for _ in 0..<3 {
    var fed = 0
    let t0 = now()
    while fed < minSamples / 3 {
        checksum &+= pass()
        fed += perPass
    }
    let rate = Double(fed) / (now() - t0)
    best = max(best, rate)
}
print("engine throughput: \(Int(best / 1e3) * 1000) samples/s (best of 3, \(traces.count) traces, \(perPass) samples per pass, checksum \(checksum % 1000)); workload: \(workload)")
