/// Locale-independent parsing of the numbers sysfs prints.
///
/// Kernel attributes are ASCII: an optional sign, digits, an optional '.' and digits,
/// and sometimes an exponent. `strtod` would follow LC_NUMERIC; these functions never
/// look at the locale, accept surrounding whitespace (the trailing newline), and refuse
/// anything else: NaN, infinities, hex, empty text, trailing garbage.
public enum SysfsNumber {
    /// The largest magnitude accepted: anything bigger is not a sensor value.
    public static let limit = 1e15

    /// Parses a decimal number ("12", "-0.009576806", "1e-3"); nil when malformed,
    /// not finite or larger than `limit` in magnitude.
    public static func parseDouble(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.trimmingWhitespace().utf8)
        var index = 0
        let end = bytes.count
        guard index < end else { return nil }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // Mantissa digits as an integer plus a decimal exponent, so that "0.1" is the
        // correctly rounded double in common cases (at most 19 significant digits kept).
        var mantissa: UInt64 = 0
        var exponent = 0
        var digits = 0
        var significant = 0
        var sawPoint = false
        while index < end {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
                if significant < 19 {
                    if mantissa != 0 || byte != UInt8(ascii: "0") { significant += 1 }
                    mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                    if sawPoint { exponent -= 1 }
                } else if !sawPoint {
                    exponent += 1
                }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var value = 0
            var exponentDigits = 0
            while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = min(value * 10 + Int(bytes[index] - UInt8(ascii: "0")), 10_000)
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -value : value
        }
        guard index == end else { return nil }
        var result = Double(mantissa)
        if exponent != 0 {
            let power = Self.power10(abs(exponent))
            result = exponent > 0 ? result * power : result / power
        }
        if negative { result = -result }
        guard result.isFinite, abs(result) <= limit else { return nil }
        return result
    }

    /// Parses a decimal integer ("-12", "0"); nil when malformed or out of range.
    public static func parseInt(_ text: some StringProtocol) -> Int64? {
        let trimmed = Array(text.trimmingWhitespace().utf8)
        guard !trimmed.isEmpty else { return nil }
        var bytes = trimmed[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
            negative = bytes.first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = s
        }
        return negative ? -value : value
    }

    /// Splits a whitespace-separated list of numbers ("1.5 10 25\n"); nil when any
    /// entry is malformed.
    public static func parseList(_ text: some StringProtocol) -> [Double]? {
        var result: [Double] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let value = parseDouble(word) else { return nil }
            result.append(value)
        }
        return result
    }

    /// Formats a value for a sysfs write: integers without a decimal point, other
    /// values with up to 6 decimals ("12.5"), never in the locale's format.
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        // Millionths are exact below 2^53 and overflow Int64 above 9.2e18 (found by
        // fuzzing: a huge raw reading trapped while being logged). Larger values, NaN and
        // infinities: Swift's own rendering, which is locale-free too.
        guard abs(value) < 1e9 else { return "\(value)" }
        let scaled = Int64((abs(value) * 1_000_000).rounded())
        var fraction = String(scaled % 1_000_000)
        while fraction.count < 6 { fraction = "0" + fraction }
        while fraction.last == "0" { fraction.removeLast() }
        return (value < 0 ? "-" : "") + String(scaled / 1_000_000) + (fraction.isEmpty ? "" : "." + fraction)
    }



    private static func power10(_ n: Int) -> Double {
        var result = 1.0
        var base = 10.0
        var e = min(n, 400)
        while e > 0 {
            if e & 1 == 1 { result *= base }
            base *= base
            e >>= 1
        }
        return result
    }
}
