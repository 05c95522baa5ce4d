// Shared by the D-Bus fuzz targets (compiled into each of them, see scripts/fuzz.sh).
@testable import DBus
import CDBus

/// Fuzzer bytes read as a stream of small decisions (``ByteStream``): integers, strings
/// and whole trees of D-Bus `Value`s. Reading past the end yields zeros, so every input
/// decodes.
struct FuzzBytes {
    private var stream: ByteStream
    /// Values left to make: repeated array items make trees exponential in the input
    /// size otherwise, and the writer's time is linear in the expanded tree.
    private var budget = 2048

    init(_ bytes: [UInt8]) { stream = ByteStream(bytes) }

    var isAtEnd: Bool { stream.isAtEnd }

    mutating func byte() -> UInt8 { stream.byte() }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T { stream.integer(type) }

    /// A length byte, then that many bytes as UTF-8 (invalid sequences replaced, as a
    /// Swift String always is; NUL bytes kept).
    mutating func string() -> String {
        let count = Int(byte())
        return String(decoding: stream.bytes(count), as: UTF8.self)
    }

    /// A basic type code, mostly the valid ones.
    mutating func basicSignature() -> String {
        let codes = Array("ybnqiuxtdsogh")
        let b = byte()
        return b < 250 ? String(codes[Int(b) % codes.count]) : String(UnicodeScalar(b))
    }

    /// A basic value (a valid dictionary key when its type is not 'h').
    mutating func basicValue(_ tag: UInt8) -> Value {
        switch tag % 14 {
        case 0: .byte(byte())
        case 1: .bool(byte() & 1 == 1)
        case 2: .int16(integer(Int16.self))
        case 3: .uint16(integer(UInt16.self))
        case 4: .int32(integer(Int32.self))
        case 5: .uint32(integer(UInt32.self))
        case 6: .int64(integer(Int64.self))
        case 7: .uint64(integer(UInt64.self))
        case 8: .double(Double(bitPattern: integer(UInt64.self)))
        case 9: .string(string())
        case 10: .objectPath(byte() & 1 == 0 ? "/" + string() : string())
        case 11: .signature(string())
        // Always a closed descriptor: the writer must refuse it, never send one.
        case 12: .unixFD(-1)
        default: .string(["SupportedOrientations", "PreferredOrientation", "FollowsLock", "normal", "left-up", "bottom-up", "right-up"][Int(byte()) % 7])
        }
    }

    /// A tree of values, up to `maxDepth` deep (deeper than D-Bus allows, on purpose).
    mutating func value(depth: Int = 0, maxDepth: Int = 80) -> Value {
        let tag = byte()
        budget -= 1
        if depth >= maxDepth || tag < 128 || budget <= 0 { return basicValue(tag) }
        switch tag % 4 {
        case 0:  // array
            let mode = byte()
            let count = Int(mode >> 2) % 6
            switch mode & 3 {
            case 0:  // raw element signature: anything
                let element = string()
                return .array(elementSignature: element, (0..<count).map { _ in value(depth: depth + 1, maxDepth: maxDepth) })
            case 1:  // one item repeated: a well-typed array
                let before = budget
                let item = value(depth: depth + 1, maxDepth: maxDepth)
                let size = max(before - budget, 1)
                let copies = count == 0 ? 0 : min(count, 1 + max(budget, 0) / size)
                budget -= max(copies - 1, 0) * size
                return .array(elementSignature: item.signature, Array(repeating: item, count: copies))
            case 2:  // typed by the first item, others may differ
                let items = (0..<max(count, 1)).map { _ in value(depth: depth + 1, maxDepth: maxDepth) }
                return .array(elementSignature: items[0].signature, items)
            default:  // empty, typed from the stream
                let element = byte() & 1 == 0 ? basicSignature() : value(depth: depth + 1, maxDepth: maxDepth).signature
                return .array(elementSignature: element, [])
            }
        case 1:  // dictionary
            let mode = byte()
            let count = Int(mode >> 2) % 5
            if mode & 3 == 0 {  // raw key and value signatures
                let key = string(), valueSignature = string()
                return .dictionary(keySignature: key, valueSignature: valueSignature, (0..<count).map { _ in
                    DictionaryEntry(value(depth: depth + 1, maxDepth: maxDepth), value(depth: depth + 1, maxDepth: maxDepth))
                })
            }
            // a{?v}: keys of one basic type, variant values
            let keyTag = byte()
            let entries = (0..<count).map { _ in
                DictionaryEntry(basicValue(keyTag), .variant(value(depth: depth + 2, maxDepth: maxDepth)))
            }
            return .dictionary(keySignature: basicValue(keyTag).signature, valueSignature: "v", entries)
        case 2:  // structure (possibly empty: the writer refuses it)
            let count = Int(byte()) % 5
            return .structure((0..<count).map { _ in value(depth: depth + 1, maxDepth: maxDepth) })
        default:
            return .variant(value(depth: depth + 1, maxDepth: maxDepth))
        }
    }
}

/// Structural equality with doubles compared bit for bit (NaN included).
func same(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
    case (.array(let s, let xs), .array(let t, let ys)): return s == t && same(xs, ys)
    case (.dictionary(let k, let v, let xs), .dictionary(let l, let w, let ys)):
        return k == l && v == w && xs.count == ys.count
            && zip(xs, ys).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
    case (.structure(let xs), .structure(let ys)): return same(xs, ys)
    case (.variant(let x), .variant(let y)): return same(x, y)
    default: return a == b
    }
}

func same(_ xs: [Value], _ ys: [Value]) -> Bool {
    xs.count == ys.count && zip(xs, ys).allSatisfy { same($0, $1) }
}

func containsFD(_ value: Value) -> Bool {
    switch value {
    case .unixFD: true
    case .array(_, let items), .structure(let items): items.contains(where: containsFD)
    case .dictionary(_, _, let entries): entries.contains { containsFD($0.key) || containsFD($0.value) }
    case .variant(let inner): containsFD(inner)
    default: false
    }
}

/// libdbus's own parser: the bytes as one marshalled message, or nil when libdbus
/// rejects them.
func demarshal(_ bytes: UnsafeRawBufferPointer) -> Message? {
    guard bytes.count >= 16, let base = bytes.baseAddress else { return nil }
    var error = DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    guard let raw = dbus_message_demarshal(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), &error) else { return nil }
    return Message(owning: raw)
}

/// The wire form of a message (serial set to 1 if it has none).
func marshal(_ message: Message) -> [UInt8]? {
    if dbus_message_get_serial(message.raw) == 0 { dbus_message_set_serial(message.raw, 1) }
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var length: Int32 = 0
    guard dbus_message_marshal(message.raw, &buffer, &length) != 0, let buffer else { return nil }
    defer { dbus_free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
}
