// Engine throughput benchmark: feeds the dev traces through OrientationEngine repeatedly
// and prints samples per second on one core. Built by bench.sh (release, -O, WMO, the
// engine as its own module as in the SwiftPM build).
import Glibc
import OrientationEngine

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

let args = Array(CommandLine.arguments.dropFirst())
guard let dir = args.first else {
    print("usage: bench TRACES_DIR [MIN_SAMPLES]")
    exit(2)
}
let minSamples = args.count > 1 ? Int(args[1]) ?? 50_000_000 : 50_000_000

var traces: [[Sample]] = []
guard let d = opendir(dir) else { print("cannot open \(dir)"); exit(1) }
var names: [String] = []
while let e = readdir(d) {
    let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    if name.hasSuffix(".csv") { names.append(name) }
}
closedir(d)
for name in names.sorted() {
    guard let text = readFile(dir + "/" + name) else { continue }
    var samples: [Sample] = []
    for line in text.split(separator: "\n") {
        if case .success(let s?) = TraceLine.parse(line) { samples.append(s) }
    }
    traces.append(samples)
}
let perPass = traces.reduce(0) { $0 + $1.count }
guard perPass > 0 else { print("no samples in \(dir)"); exit(1) }

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
print("engine throughput: \(Int(best / 1e3) * 1000) samples/s (best of 3, \(traces.count) traces, \(perPass) samples per pass, checksum \(checksum % 1000))")
