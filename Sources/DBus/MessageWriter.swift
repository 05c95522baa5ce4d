import CDBus

/// Appends `Value`s to a message through libdbus's iterator API.
///
/// Everything libdbus would reject (and, in some builds, abort on) is checked first and
/// reported as `InvalidArgs`: strings with NUL bytes, malformed object paths and
/// signatures, array elements of the wrong type, non-basic dictionary keys.
struct MessageWriter {
    static func append(_ values: [Value], to message: OpaquePointer) throws(BusError) {
        for value in values where bodyDepth(value) > 64 {
            throw .invalidArgs("type '\(value.signature.prefix(64))…' is nested too deeply: more than 64 containers, variants included")
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try append(value, to: &iter) }
    }

    private static func append(_ value: Value, to iter: inout DBusMessageIter) throws(BusError) {
        switch value {
        case .byte(let v): appendBasic(TypeCode.byte, v, &iter)
        case .bool(let v): appendBasic(TypeCode.boolean, dbus_bool_t(v ? 1 : 0), &iter)
        case .int16(let v): appendBasic(TypeCode.int16, v, &iter)
        case .uint16(let v): appendBasic(TypeCode.uint16, v, &iter)
        case .int32(let v): appendBasic(TypeCode.int32, v, &iter)
        case .uint32(let v): appendBasic(TypeCode.uint32, v, &iter)
        case .int64(let v): appendBasic(TypeCode.int64, v, &iter)
        case .uint64(let v): appendBasic(TypeCode.uint64, v, &iter)
        case .double(let v): appendBasic(TypeCode.double, v, &iter)
        case .unixFD(let fd):
            // libdbus duplicates the descriptor; a closed one is refused, not sent.
            var copy = fd
            guard dbus_message_iter_append_basic(&iter, TypeCode.unixFD, &copy) != 0 else {
                throw .invalidArgs("\(fd) is not an open file descriptor")
            }
        case .string(let s):
            try checkNoNUL(s, "string")
            appendString(TypeCode.string, s, &iter)
        case .objectPath(let s):
            try checkNoNUL(s, "object path")
            guard dbus_validate_path(s, nil) != 0 else { throw .invalidArgs("'\(s)' is not a valid object path") }
            appendString(TypeCode.objectPath, s, &iter)
        case .signature(let s):
            try checkNoNUL(s, "signature")
            guard dbus_signature_validate(s, nil) != 0 else { throw .invalidArgs("'\(s)' is not a valid signature") }
            appendString(TypeCode.signature, s, &iter)
        case .array(let element, let items):
            guard isSingleCompleteType(element) else {
                throw .invalidArgs("'\(element)' is not a single complete type")
            }
            try withContainer(TypeCode.array, element, &iter) { (sub) throws(BusError) in
                for item in items {
                    guard item.signature == element else {
                        throw .invalidArgs("array of '\(element)' holds an element of type '\(item.signature)'")
                    }
                    try append(item, to: &sub)
                }
                try checkDepth(value)
            }
        case .dictionary(let key, let valueSignature, let entries):
            // dbus_type_is_basic aborts on a character that is no type code at all.
            guard key.utf8.count == 1, let code = key.utf8.first, dbus_type_is_valid(Int32(code)) != 0,
                  dbus_type_is_basic(Int32(code)) != 0 else {
                throw .invalidArgs("dictionary key type '\(key)' is not a basic type")
            }
            guard isSingleCompleteType(valueSignature) else {
                throw .invalidArgs("'\(valueSignature)' is not a single complete type")
            }
            try withContainer(TypeCode.array, "{" + key + valueSignature + "}", &iter) { (sub) throws(BusError) in
                for entry in entries {
                    guard entry.key.signature == key, entry.value.signature == valueSignature else {
                        throw .invalidArgs("dictionary a{\(key)\(valueSignature)} holds an entry of type {\(entry.key.signature)\(entry.value.signature)}")
                    }
                    try withContainer(TypeCode.dictEntry, nil, &sub) { (pair) throws(BusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
                try checkDepth(value)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("a structure needs at least one field") }
            try withContainer(TypeCode.structure, nil, &iter) { (sub) throws(BusError) in
                for field in fields { try append(field, to: &sub) }
                try checkDepth(value)
            }
        case .variant(let inner):
            // libdbus aborts on an invalid variant signature: check it first.
            guard isSingleCompleteType(inner.signature) else {
                throw .invalidArgs("a variant cannot hold a value of type '\(inner.signature)'")
            }
            try withContainer(TypeCode.variant, inner.signature, &iter) { (sub) throws(BusError) in
                try append(inner, to: &sub)
            }
        }
    }

    /// Checked once a container's parts are known to be valid: it can still exceed the
    /// limits of the D-Bus type system (32 nested arrays, 32 nested structures, 255 bytes
    /// of signature). libdbus builds such a message, but no receiver accepts it.
    private static func checkDepth(_ value: Value) throws(BusError) {
        let signature = value.signature
        guard dbus_signature_validate_single(signature, nil) != 0 else {
            throw .invalidArgs("type '\(signature.prefix(64))…' is nested too deeply or too long")
        }
    }

    /// How deep a receiver's validation recurses into a value: libdbus refuses a body
    /// nested more than 64 deep, counting variants, structures, dictionary entries and
    /// non-empty arrays of non-fixed types, which the signature check cannot see (a
    /// variant hides what it holds). Found by fuzzing (fuzz/targets/dbus_message.swift).
    private static func bodyDepth(_ value: Value) -> Int {
        switch value {
        case .variant(let inner): 1 + bodyDepth(inner)
        case .structure(let fields): 1 + (fields.lazy.map(bodyDepth).max() ?? 0)
        case .array(let element, let items):
            items.isEmpty || (element.utf8.count == 1 && "ybnqiuxtdh".utf8.contains(element.utf8.first ?? 0))
                ? 0 : 1 + (items.lazy.map(bodyDepth).max() ?? 0)
        case .dictionary(_, _, let entries):
            entries.isEmpty ? 0 : 2 + (entries.lazy.map { max(bodyDepth($0.key), bodyDepth($0.value)) }.max() ?? 0)
        default: 0
        }
    }

    /// libdbus reads a signature as a C string: "d\0x" would pass its check as "d" and be
    /// written as "d", and the values read back would differ from those sent. A NUL byte
    /// is never part of a valid signature.
    private static func isSingleCompleteType(_ signature: String) -> Bool {
        !signature.utf8.contains(0) && dbus_signature_validate_single(signature, nil) != 0
    }

    private static func checkNoNUL(_ s: String, _ what: String) throws(BusError) {
        if s.utf8.contains(0) { throw .invalidArgs("\(what) contains a NUL byte") }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ type: Int32, _ value: T, _ iter: inout DBusMessageIter) {
        var copy = value
        let ok = dbus_message_iter_append_basic(&iter, type, &copy)
        // Only out-of-memory fails once the value has been checked.
        precondition(ok != 0, "libdbus ran out of memory")
    }

    private static func appendString(_ type: Int32, _ s: String, _ iter: inout DBusMessageIter) {
        s.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            let ok = dbus_message_iter_append_basic(&iter, type, &pointer)
            precondition(ok != 0, "libdbus ran out of memory")
        }
    }

    private static func withContainer(
        _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(BusError) -> Void
    ) throws(BusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t =
            if let signature { dbus_message_iter_open_container(&iter, type, signature, &sub) }
            else { dbus_message_iter_open_container(&iter, type, nil, &sub) }
        precondition(opened != 0, "libdbus ran out of memory")
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        precondition(dbus_message_iter_close_container(&iter, &sub) != 0, "libdbus ran out of memory")
    }
}
