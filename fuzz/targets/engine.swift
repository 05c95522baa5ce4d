// Fuzz target: the orientation engine (Sources/OrientationEngine) driven as the daemon
// drives it, by accelerometer readings, gyroscope readings and timer wake-ups, in any
// order and with any values: non-finite, zero, huge or tiny readings, timestamps that
// go back or jump, a gyroscope that is saturated, stuck or lies.
//
// Input: a delivery byte (its low bit: event-driven or streaming), then events of one
// op byte, a signed 16-bit time step (little-endian) and three values (each a selector byte: a special
// value, or a 16-bit mantissa scaled by a power of ten). Properties, after every event:
// - nothing traps, and the explanation can be written;
// - a wake-up at the engine's deadline decides: the orientation or the tilt changes
//   then (the deadline and the decision come from one function, so a timer never fires
//   for a change the judge then does not make);
// - a streaming sensor's engine never sets a deadline (its gap is a dropout);
// - a learned 1 g is finite and positive.
import OrientationEngine

extension ByteStream {
    /// A value: a special one, or a signed 16-bit mantissa scaled by 10^(−4…+11).
    mutating func value() -> Double {
        let selector = byte()
        switch selector {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return 0
        case 4: return -0.0
        case 5: return .greatestFiniteMagnitude
        case 6: return -.greatestFiniteMagnitude
        case 7: return .leastNonzeroMagnitude
        case 8: return 9.80665
        case 9: return -9.80665
        default:
            let mantissa = Double(integer(Int16.self))
            var scale = 1.0
            for _ in 0..<Int(selector % 16) { scale *= 10 }
            return mantissa * scale / 10_000
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = ByteStream(Array(UnsafeRawBufferPointer(start: data, count: size)))
    let delivery: SensorDelivery = input.byte() & 1 == 0 ? .onChange : .stream
    var engine = OrientationEngine(delivery: delivery)
    var timeMs: Int64 = 0
    var events = 0
    while !input.isAtEnd && events < 4096 {
        events += 1
        let op = input.byte()
        let step = Int64(input.integer(Int16.self))
        timeMs = max(-1_000_000_000, min(1_000_000_000, timeMs + step))
        switch op % 4 {
        case 0, 1:
            _ = engine.feed(Sample(timeMs: timeMs, x: input.value(), y: input.value(), z: input.value()))
        case 2:
            engine.feedGyroscope(GyroscopeSample(timeMs: timeMs, x: input.value(), y: input.value(), z: input.value()))
        default:
            // A timer wake-up: at the deadline the engine set, checked as promised.
            guard let deadline = engine.nextDeadlineMs else { break }
            let before = (engine.orientation, engine.tilt)
            engine.advance(toMs: deadline)
            let changed = engine.orientation != before.0 || engine.tilt != before.1
            precondition(changed, "the deadline \(deadline) decided nothing (next: \(String(describing: engine.nextDeadlineMs)))")
        }
        if let deadline = engine.nextDeadlineMs {
            precondition(delivery == .onChange, "a streaming sensor's engine set a deadline at \(deadline)")
        }
        if let g = engine.learnedGravity { precondition(g.isFinite && g > 0, "learned 1 g \(g)") }
        _ = engine.explanation
        _ = engine.scaleWarning
        _ = engine.gyroscopeWarning
        _ = engine.readingWantedMs
    }
    return 0
}
