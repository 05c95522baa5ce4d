/// One D-Bus value of any type, as it travels in a message body.
///
/// Containers carry their element signature so that empty arrays keep their type.
public indirect enum Value: Equatable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor passed over the bus. Reading a message yields a duplicate that
    /// the reader owns; writing one sends a duplicate of it.
    case unixFD(Int32)
    /// An array of values whose type is `elementSignature` (a single complete type).
    case array(elementSignature: String, [Value])
    /// An `a{kv}` dictionary, entries in wire order.
    case dictionary(keySignature: String, valueSignature: String, [DictionaryEntry])
    case structure([Value])
    case variant(Value)

    /// The D-Bus signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// The signature of a sequence of values, as a message body has.
    public static func signature(of values: [Value]) -> String { values.map(\.signature).joined() }
}

/// One key/value pair of a dictionary value.
public struct DictionaryEntry: Equatable, Sendable {
    public var key: Value
    public var value: Value
    public init(_ key: Value, _ value: Value) {
        self.key = key
        self.value = value
    }
}

// MARK: Convenient access

extension Value {
    public var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var uint32Value: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    public var int32Value: Int32? { if case .int32(let v) = self { v } else { nil } }
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The contents of a variant (or the value itself when it is not one).
    public var unwrappedVariant: Value { if case .variant(let v) = self { v } else { self } }

    /// The strings of an `as` array.
    public var stringArray: [String]? {
        guard case .array(_, let items) = self else { return nil }
        var result: [String] = []
        for item in items {
            guard let s = item.stringValue else { return nil }
            result.append(s)
        }
        return result
    }

    /// An `a{sv}` dictionary keyed by string, or nil for any other value. Later
    /// duplicates of a key are reported through `duplicateKeys`.
    public var stringKeyedEntries: [(key: String, value: Value)]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var result: [(key: String, value: Value)] = []
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result.append((key, entry.value))
        }
        return result
    }

    /// `as` from Swift strings.
    public static func strings(_ items: [String]) -> Value {
        .array(elementSignature: "s", items.map { .string($0) })
    }

    /// `a{sv}` from Swift pairs, in the given order.
    public static func vardict(_ pairs: [(String, Value)]) -> Value {
        .dictionary(keySignature: "s", valueSignature: "v",
                    pairs.map { DictionaryEntry(.string($0.0), .variant($0.1)) })
    }
}
