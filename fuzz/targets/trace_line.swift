// Fuzz target: the trace CSV parser (`TraceLine.parse`,
// Sources/OrientationEngine/TraceLine.swift), line by line over a whole trace as
// `orientationctl replay` and the replay sensor read it; the accepted samples then
// drive the orientation engine.
//
// A data line gives finite values; a failure has a message.
import OrientationEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    var engine = OrientationEngine()
    var last: Int64?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        switch TraceLine.parse(line) {
        case .success(let sample?):
            precondition(sample.x.isFinite && sample.y.isFinite && sample.z.isFinite, "non-finite sample \(sample)")
            if last.map({ sample.timeMs > $0 }) ?? true {
                last = sample.timeMs
                if engine.feed(sample) { _ = (engine.orientation, engine.tilt, engine.explanation) }
            }
        case .success(nil):
            break
        case .failure(let error):
            precondition(!error.message.isEmpty, "failure without a message")
        }
    }
    return 0
}
