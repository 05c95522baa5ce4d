// Fuzz target: locale-free sysfs number parsing (`SysfsNumber`,
// Sources/Sensors/SysfsNumber.swift) and the formatter the log and sysfs writes use.
//
// Input: the text of a sysfs attribute ("0.009582\n", "-12", "1.5 10 25\n"). Parsed
// doubles are finite and within `limit`; parsed integers agree with Swift's own
// parser; lists agree with parsing their words one by one. `format` of any parsed
// value, and of any double made from the input bits, never traps, and a parsed
// value formats back to text that parses to within rounding.
import Sensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSysfsNumber(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    if let value = SysfsNumber.parseDouble(text) {
        precondition(value.isFinite && abs(value) <= SysfsNumber.limit, "\(value) accepted")
        let formatted = SysfsNumber.format(value)
        guard let again = SysfsNumber.parseDouble(formatted) else { preconditionFailure("'\(formatted)' does not parse") }
        precondition(abs(again - value) <= max(1e-6, abs(value) * 1e-15), "'\(formatted)' is \(again), not \(value)")
    }
    if let integer = SysfsNumber.parseInt(text) {
        // Byte-wise: "\r\n" is one Character.
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
        let trimmed = String(decoding: text.utf8.drop(while: space).reversed().drop(while: space).reversed(), as: UTF8.self)
        precondition(Int64(trimmed) == integer, "parseInt('\(text)') = \(integer)")
        precondition(SysfsNumber.parseDouble(text) != nil || abs(Double(integer)) > SysfsNumber.limit,
                     "integer \(integer) is not a double")
    }
    if let list = SysfsNumber.parseList(text) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        precondition(list.count == words.count, "list of \(list.count) from \(words.count) words")
    }
    _ = SamplingFrequency.choose(available: text)
    if size >= 8 {
        let bits = bytes.loadUnaligned(as: UInt64.self)
        _ = SysfsNumber.format(Double(bitPattern: bits))
    }
    return 0
}
