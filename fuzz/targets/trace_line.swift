// Fuzz target: the trace CSV reader (`TraceReader` over `TraceLine.parse`,
// Sources/OrientationEngine/TraceReader.swift and TraceLine.swift), line by line over
// a whole trace as `orientationctl replay` and the replay sensor read it; the accepted
// samples then drive the orientation engine.
//
// A data line gives finite values whose times increase; a skipped line is warned about
// only as the first of its kind, with a detail; warnings and tallies account for every
// skipped line, and each tally's last line is one that was read.
import OrientationEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    var engine = OrientationEngine()
    var reader = TraceReader()
    var last: Int64?
    var lines = 0
    var read = 0
    var blank = 0
    var warned: [TraceReader.Problem] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        lines += 1
        if case .success(nil) = TraceLine.parse(line) { blank += 1 }
        let sample = reader.read(line) { skipped in
            precondition(!warned.contains(skipped.problem), "warned twice about \(skipped.problem)")
            precondition(!skipped.detail.isEmpty && skipped.line == lines, "bad warning \(skipped)")
            warned.append(skipped.problem)
        }
        guard let sample else { continue }
        read += 1
        precondition(sample.x.isFinite && sample.y.isFinite && sample.z.isFinite, "non-finite sample \(sample)")
        precondition(last.map { sample.timeMs > $0 } ?? true, "time does not increase: \(sample)")
        last = sample.timeMs
        if engine.feed(sample) { _ = (engine.orientation, engine.tilt, engine.explanation) }
    }
    let tallies = reader.takeTallies()
    precondition(reader.lineNumber == lines, "\(reader.lineNumber) lines numbered of \(lines)")
    precondition(tallies.allSatisfy { warned.contains($0.problem) && $0.count > 0 && $0.lastLine <= lines }, "\(tallies)")
    // Every line is a blank or a comment, a sample, or skipped: warned about or counted.
    precondition(blank + read + warned.count + tallies.reduce(0) { $0 + $1.count } == lines,
                 "\(lines) lines: \(blank) blank, \(read) read, \(warned.count) warned, tallies \(tallies)")
    return 0
}
