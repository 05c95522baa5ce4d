import CDBus
import Glibc
import Posix
import Testing
@_spi(Testing) @testable import DBus
import TestSupport

// Round trips through libdbus: values are appended to a real message by MessageWriter,
// read back by MessageReader, and (in the `wire` variants) serialised to the D-Bus wire
// format with dbus_message_marshal and parsed again with dbus_message_demarshal, which
// validates the bytes as a peer would.

/// A signal and a method call carrying `values`.
func messages(with values: [Value]) throws -> [Message] {
    [
        try Message.signal(path: "/org/example/Test", interface: "org.example.Test", member: "Sig", arguments: values),
        try Message.methodCall(destination: "org.example.Dest", path: "/", interface: "org.example.Test",
                               member: "Call", arguments: values),
    ]
}

/// The message after a trip through the wire format.
func throughWire(_ message: Message) throws -> Message {
    // A message gets its serial when sent; demarshal refuses serial 0.
    if message.serial == 0 { dbus_message_set_serial(message.raw, 1) }
    var bytes: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(message.raw, &bytes, &length) != 0, let bytes else {
        throw BusError.failed("marshal failed")
    }
    defer { dbus_free(bytes) }
    var error = DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    guard let parsed = dbus_message_demarshal(bytes, length, &error) else {
        throw BusError(from: error, fallback: "demarshal failed")
    }
    return Message(owning: parsed)
}

/// Asserts that `values` survive both message kinds, directly and through the wire.
func expectRoundTrip(_ values: [Value], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expectedSignature = Value.signature(of: values)
    for message in try messages(with: values) {
        #expect(message.signature == expectedSignature, sourceLocation: sourceLocation)
        #expect(message.arguments == values, sourceLocation: sourceLocation)
        let wire = try throughWire(message)
        #expect(wire.signature == expectedSignature, sourceLocation: sourceLocation)
        #expect(wire.arguments == values, sourceLocation: sourceLocation)
    }
}

@Suite struct BasicRoundTripTests {
    @Test func everyBasicTypeInOneMessage() throws {
        let values: [Value] = [
            .byte(0xA5), .bool(true), .bool(false), .int16(-12345), .uint16(54321),
            .int32(-2_000_000_000), .uint32(4_000_000_000), .int64(-9_000_000_000_000),
            .uint64(18_000_000_000_000_000_000), .double(3.25), .string("hello"),
            .objectPath("/org/example/Obj_1"), .signature("a{sv}(ii)"),
        ]
        try expectRoundTrip(values)
        #expect(Value.signature(of: values) == "ybbnqiuxtdsog")
    }

    @Test(arguments: [
        [Value.byte(0), .byte(255)],
        [.int16(.min), .int16(.max)],
        [.uint16(0), .uint16(.max)],
        [.int32(.min), .int32(.max)],
        [.uint32(0), .uint32(.max)],
        [.int64(.min), .int64(.max)],
        [.uint64(0), .uint64(.max)],
        [.double(.infinity), .double(-.infinity), .double(.greatestFiniteMagnitude),
         .double(.leastNonzeroMagnitude), .double(-0.0)],
        [.string(""), .objectPath("/"), .signature("")],
    ])
    func extremeValues(_ values: [Value]) throws {
        try expectRoundTrip(values)
    }

    @Test func doublesSurviveBitExact() throws {
        let patterns: [UInt64] = [
            Double.nan.bitPattern, Double.signalingNaN.bitPattern, (-Double.nan).bitPattern,
            0x7FF8_0000_DEAD_BEEF,  // NaN with a payload
            (-0.0).bitPattern, Double.infinity.bitPattern, Double.leastNonzeroMagnitude.bitPattern,
            Double.pi.bitPattern,
        ]
        let values = patterns.map { Value.double(Double(bitPattern: $0)) }
        for message in try messages(with: values) {
            for decoded in [message.arguments, try throughWire(message).arguments] {
                let bits = decoded.compactMap { $0.doubleValue?.bitPattern }
                #expect(bits == patterns)
            }
        }
    }

    @Test func strings() throws {
        let long = String(repeating: "orientation ", count: 20_000)  // 240 kB
        let unicode = "Ünïcödé ✓ 日本語 🧭 \u{200D}\u{1F3F3}\u{FE0F}"
        try expectRoundTrip([.string(""), .string(long), .string(unicode), .string("tab\tnewline\n")])
        for message in try messages(with: [.string(unicode)]) {
            #expect(message.arguments.first?.stringValue?.utf8.count == unicode.utf8.count)
        }
    }

    @Test func unixFDComesBackAsADuplicateOfTheSamePipe() throws {
        let (r, w) = try FileDescriptor.pipe()
        let message = try Message.signal(path: "/t", interface: "org.example.T", member: "Fd",
                                         arguments: [.int32(1), .unixFD(w.rawValue)])
        #expect(message.signature == "ih")
        let arguments = message.arguments
        #expect(arguments.count == 2)
        guard case .unixFD(let raw) = arguments[1] else {
            Issue.record("expected a unix fd, got \(arguments)")
            return
        }
        let copy = FileDescriptor(owning: raw)
        #expect(copy.rawValue >= 0)
        #expect(copy.rawValue != w.rawValue)

        // Same open file: same inode as the original write end.
        var a = stat(), b = stat()
        #expect(fstat(w.rawValue, &a) == 0)
        #expect(fstat(copy.rawValue, &b) == 0)
        #expect(a.st_ino == b.st_ino)
        #expect(a.st_dev == b.st_dev)

        // Writing through the duplicate reaches the original pipe's read end.
        try copy.writeAll("via dup")
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { raw in try r.read(into: raw) }
        #expect(Array(buffer[0..<n]) == Array("via dup".utf8))

        // The message holds its own duplicate: closing ours does not affect it.
        w.close()
        copy.close()
        guard case .unixFD(let again) = message.arguments[1] else {
            Issue.record("expected a unix fd")
            return
        }
        let second = FileDescriptor(owning: again)
        try second.writeAll("x")
        let m = try buffer.withUnsafeMutableBytes { raw in try r.read(into: raw) }
        #expect(m == 1)
    }
}

@Suite struct ContainerRoundTripTests {
    @Test func emptyArraysKeepTheirElementSignature() throws {
        let values: [Value] = [
            .array(elementSignature: "s", []),
            .array(elementSignature: "(ia{sv})", []),
            .array(elementSignature: "aai", []),
            .array(elementSignature: "v", []),
            .dictionary(keySignature: "s", valueSignature: "v", []),
            .dictionary(keySignature: "u", valueSignature: "a{sas}", []),
        ]
        try expectRoundTrip(values)
        #expect(Value.signature(of: values) == "asa(ia{sv})aaaiava{sv}a{ua{sas}}")
    }

    @Test func arraysOfBasicsStructsAndArrays() throws {
        try expectRoundTrip([
            .array(elementSignature: "y", (0...255).map { .byte(UInt8($0)) }),
            .array(elementSignature: "b", [.bool(true), .bool(false)]),
            .array(elementSignature: "d", [.double(1.5), .double(-2)]),
            .array(elementSignature: "x", [.int64(.min), .int64(.max)]),
            .strings(["a", "", "ü"]),
            .array(elementSignature: "o", [.objectPath("/a"), .objectPath("/b/c")]),
            .array(elementSignature: "(si)", [.structure([.string("x"), .int32(1)]), .structure([.string("y"), .int32(2)])]),
            .array(elementSignature: "ai", [
                .array(elementSignature: "i", [.int32(1), .int32(2)]),
                .array(elementSignature: "i", []),
                .array(elementSignature: "i", [.int32(3)]),
            ]),
            .array(elementSignature: "a{sv}", [.vardict([("k", .bool(true))]), .vardict([])]),
        ])
    }

    @Test func dictionaries() throws {
        let nested: Value = .vardict([
            ("name", .string("hall")),
            ("level", .uint32(3)),
            ("inner", .vardict([("deep", .variant(.array(elementSignature: "i", [.int32(1)])))])),
            ("pair", .structure([.int16(-1), .objectPath("/x")])),
        ])
        let byInt: Value = .dictionary(keySignature: "i", valueSignature: "a{sv}", [
            DictionaryEntry(.int32(1), .vardict([("a", .int32(1))])),
            DictionaryEntry(.int32(-5), .vardict([])),
        ])
        let others: [Value] = [
            .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", [
                DictionaryEntry(.objectPath("/obj"), .dictionary(keySignature: "s", valueSignature: "a{sv}", [
                    DictionaryEntry(.string("org.example.I"), .vardict([("P", .double(0.5))])),
                ])),
            ]),
            .dictionary(keySignature: "y", valueSignature: "b", [DictionaryEntry(.byte(1), .bool(true))]),
            .dictionary(keySignature: "g", valueSignature: "s", [DictionaryEntry(.signature("ai"), .string("x"))]),
        ]
        try expectRoundTrip([nested, byInt] + others)
        #expect(nested.signature == "a{sv}")
        #expect(byInt.signature == "a{ia{sv}}")
        #expect(others[0].signature == "a{oa{sa{sv}}}")
    }

    @Test func dictionaryKeepsWireOrderAndDuplicates() throws {
        let dict: Value = .dictionary(keySignature: "s", valueSignature: "i", [
            DictionaryEntry(.string("z"), .int32(1)),
            DictionaryEntry(.string("a"), .int32(2)),
            DictionaryEntry(.string("z"), .int32(3)),
        ])
        try expectRoundTrip([dict])
    }

    @Test func structures() throws {
        let values: [Value] = [
            .structure([.int32(1)]),
            .structure([.string("a"), .structure([.bool(true), .structure([.double(2), .strings(["q"])])])]),
            .structure([.array(elementSignature: "(ii)", [.structure([.int32(1), .int32(2)])]), .vardict([])]),
        ]
        try expectRoundTrip(values)
        #expect(values[1].signature == "(s(b(das)))")
        #expect(values[2].signature == "(a(ii)a{sv})")
    }

    @Test func variants() throws {
        let values: [Value] = [
            .variant(.int32(7)),
            .variant(.variant(.string("inner"))),
            .variant(.variant(.variant(.variant(.uint64(.max))))),
            .variant(.array(elementSignature: "s", [])),
            .variant(.strings(["a", "b"])),
            .variant(.vardict([("x", .variant(.bool(true)))])),
            .variant(.structure([.int32(1), .variant(.byte(2))])),
            .array(elementSignature: "v", [.variant(.int32(1)), .variant(.string("two")), .variant(.strings([]))]),
        ]
        try expectRoundTrip(values)
        #expect(Value.signature(of: values) == "vvvvvvvav")
    }

    @Test func deepNesting() throws {
        // 32 nested arrays is the D-Bus limit for arrays; 31 here plus the element.
        var array: Value = .int32(42)
        for _ in 0..<31 { array = .array(elementSignature: array.signature, [array]) }
        #expect(array.signature == String(repeating: "a", count: 31) + "i")

        // Structures nested 30 deep.
        var structure: Value = .string("core")
        for level in 0..<30 { structure = .structure([.uint32(UInt32(level)), structure]) }

        // Variants holding dictionaries of variants, 10 levels (the wire allows 64 containers).
        var variant: Value = .bool(true)
        for level in 0..<10 { variant = .variant(.vardict([("l\(level)", variant)])) }

        try expectRoundTrip([array, structure, variant])
    }

    @Test func manyArguments() throws {
        let values = (0..<200).map { Value.int32(Int32($0)) }
        try expectRoundTrip(values)
    }
}

@Suite struct SignalTemplateTests {
    @Test("a signal template has no path; each copy carries its own path and recipient, the template's body, and is valid on the wire")
    func copiesOfATemplate() throws {
        let body: [Value] = [.string("org.example.Test"), .vardict([("Level", .uint32(3))]), .strings(["Other"])]
        let template = try Message.signalTemplate(interface: "org.example.Test", member: "Changed", arguments: body)
        #expect(template.path == nil)
        for (path, destination) in [("/org/example/Client/1", ":1.7"), ("/org/example/Client/12345", nil)] {
            let copy = try throughWire(try template.copy(path: path, destination: destination))
            #expect(copy.path == path && copy.destination == destination)
            #expect(copy.interface == "org.example.Test" && copy.member == "Changed" && copy.kind == .signal)
            #expect(copy.arguments == body)
        }
        #expect(template.path == nil)
        #expect(throws: BusError.self) { try template.copy(path: "not a path", destination: nil) }
    }
}
