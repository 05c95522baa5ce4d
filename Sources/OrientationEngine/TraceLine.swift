/// One line of a trace CSV: `t_ms,x,y,z` (see the traces' README).
///
/// `t_ms` is an integer number of milliseconds, `x,y,z` are decimal m/s² in the Linux IIO
/// frame. Parsing is locale independent: the decimal point is always `.`.
public enum TraceLine {
    /// Parse one line (without or with its line terminator).
    ///
    /// - Returns: `.success(sample)` for a data line; `.success(nil)` for a blank line or a
    ///   comment (first non-blank character `#`); `.failure` with a message for anything
    ///   else: wrong number of fields, a time that is not an integer, a value that is not a
    ///   decimal number, or a non-finite value (nan, inf, or an overflowing exponent).
    ///   Whether timestamps increase is the caller's business.
    public static func parse(_ line: Substring) -> Result<Sample?, TraceLineError> {
        let text = line.trimmingWhitespace()
        if text.isEmpty || text.first == "#" { return .success(nil) }
        var fields: [Substring] = []
        fields.reserveCapacity(4)
        var start = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "," {
                fields.append(text[start..<i])
                start = text.index(after: i)
            }
            i = text.index(after: i)
        }
        fields.append(text[start..<text.endIndex])
        guard fields.count == 4 else {
            return .failure(TraceLineError(message: "expected 4 fields t_ms,x,y,z, found \(fields.count)"))
        }
        let tText = fields[0].trimmingWhitespace()
        guard let t = Int64(tText) else {
            return .failure(TraceLineError(message: "t_ms '\(tText)' is not an integer number of milliseconds"))
        }
        var v: (Double, Double, Double) = (0, 0, 0)
        let names = ["x", "y", "z"]
        for k in 0..<3 {
            let f = fields[k + 1].trimmingWhitespace()
            guard EngineTunables.isPlainDecimal(f), let d = Double(f) else {
                return .failure(TraceLineError(message: "\(names[k]) '\(f)' is not a decimal number"))
            }
            guard d.isFinite else {
                return .failure(TraceLineError(message: "\(names[k]) '\(f)' is not finite", kind: .notFinite))
            }
            switch k {
            case 0: v.0 = d
            case 1: v.1 = d
            default: v.2 = d
            }
        }
        return .success(Sample(timeMs: t, x: v.0, y: v.1, z: v.2))
    }
}

/// Why a trace line could not be parsed.
public struct TraceLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of fault: the line's form, or a value that is a number but not a finite one.
    public enum Kind: Sendable, Equatable {
        case form, notFinite
    }

    public var message: String
    public var kind: Kind

    public init(message: String, kind: Kind = .form) {
        self.message = message
        self.kind = kind
    }

    public var description: String { message }
}
