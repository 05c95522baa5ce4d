import CDBus

/// Reads a message body into `Value`s through libdbus's iterator API.
///
/// libdbus has validated the message on arrival, so every type it reports is
/// well-formed; the reader still refuses to trap on anything unexpected.
struct MessageReader {
    static func read(_ message: OpaquePointer) -> [Value] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [Value] {
        var values: [Value] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            if let value = readOne(&iter) { values.append(value) }
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func readOne(_ iter: inout DBusMessageIter) -> Value? {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case TypeCode.byte: return .byte(basic(&iter, UInt8(0)))
        case TypeCode.boolean: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iter, UInt64(0)))
        case TypeCode.double: return .double(basic(&iter, Double(0)))
        case TypeCode.unixFD: return .unixFD(basic(&iter, Int32(-1)))
        case TypeCode.string: return .string(string(&iter))
        case TypeCode.objectPath: return .objectPath(string(&iter))
        case TypeCode.signature: return .signature(string(&iter))
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return readOne(&sub).map { .variant($0) }
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        case TypeCode.array:
            let full = signature(&iter)
            let element = String(full.dropFirst())
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if dbus_message_iter_get_element_type(&iter) == TypeCode.dictEntry {
                // element is "{kv}": one basic key character, then the value type.
                let inner = element.dropFirst().dropLast()
                let key = String(inner.prefix(1))
                let valueSignature = String(inner.dropFirst())
                var entries: [DictionaryEntry] = []
                while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry {
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &pair)
                    let kv = readAll(&pair)
                    if kv.count == 2 { entries.append(DictionaryEntry(kv[0], kv[1])) }
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(keySignature: key, valueSignature: valueSignature, entries)
            }
            return .array(elementSignature: element, readAll(&sub))
        default:
            return nil
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
