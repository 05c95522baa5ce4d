/// A JSON value, read from what sway's IPC prints (`swaymsg -r`): enough of RFC 8259 to
/// walk its trees and events without Foundation, which orientationctl does not link.
/// Reading never traps: malformed input is nil.
indirect enum JSON: Equatable {
    case object([String: JSON])
    case array([JSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? { if case .string(let value) = self { return value } else { return nil } }
    var bool: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    var array: [JSON]? { if case .array(let value) = self { return value } else { return nil } }
    var int: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 1e15 else { return nil }
        return Int(value)
    }

    /// One JSON text (surrounding white space allowed); nil when it is not valid JSON.
    static func parse(_ text: some Collection<UInt8>) -> JSON? {
        var reader = Reader(bytes: Array(text))
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == reader.bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Deeper than any tree sway prints; bounds the recursion on hostile input.
        static let maximumDepth = 512

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func literal(_ word: String) -> Bool {
            let utf8 = Array(word.utf8)
            guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return false }
            index += utf8.count
            return true
        }

        mutating func value(depth: Int) -> JSON? {
            guard depth < Self.maximumDepth else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSON] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let member = value(depth: depth + 1) else { return nil }
                    members[key] = member
                    guard let closed = next(closing: "}") else { return nil }
                    if closed { return .object(members) }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                    guard let closed = next(closing: "]") else { return nil }
                    if closed { return .array(elements) }
                }
            case UInt8(ascii: "\""):
                return string().map(JSON.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default:
                let start = index
                while index < bytes.count, "+-.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
                return Double(String(decoding: bytes[start..<index], as: UTF8.self)).map(JSON.number)
            }
        }

        /// After a member or element: true at the closing bracket, false at a comma, nil
        /// at anything else.
        mutating func next(closing: Unicode.Scalar) -> Bool? {
            skipSpace()
            guard index < bytes.count else { return nil }
            index += 1
            if bytes[index - 1] == UInt8(ascii: closing) { return true }
            return bytes[index - 1] == UInt8(ascii: ",") ? false : nil
        }

        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
                        index += 4
                        // Surrogate halves are not paired up: a replacement character is enough here.
                        out.append(contentsOf: Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                    default: out.append(escape)
                    }
                default: out.append(byte)
                }
            }
            return nil
        }
    }
}

/// Splits a stream of concatenated JSON texts (sway's event stream: the subscribe reply,
/// then one event per line) into whole texts, however the bytes arrive.
struct JSONStream {
    private var pending: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scanned = 0
    /// A text that never ends is not kept without bound.
    static let maximumLength = 16 << 20

    /// Appends bytes; returns the texts they complete, in order (nil for a malformed one).
    mutating func feed(_ bytes: some Collection<UInt8>) -> [JSON?] {
        pending.append(contentsOf: bytes)
        var complete: [JSON?] = []
        var start = 0
        while scanned < pending.count {
            let byte = pending[scanned]
            scanned += 1
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 {
                    complete.append(depth == 0 ? JSON.parse(pending[start..<scanned]) : nil)
                    depth = 0
                    start = scanned
                }
            default: break
            }
        }
        pending.removeFirst(start)
        scanned -= start
        if pending.count > Self.maximumLength {
            pending.removeAll()
            scanned = 0
            depth = 0
            inString = false
            complete.append(nil)
        }
        return complete
    }
}
