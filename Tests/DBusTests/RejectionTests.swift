import CDBus
import Glibc
import Posix
import Testing
@_spi(Testing) @testable import DBus
import TestSupport

let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

/// Asserts that building a message with `values` fails with InvalidArgs whose message
/// mentions `fragment`, for a signal, a method call and a reply alike.
func expectRejected(_ values: [Value], mentioning fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let builders: [(String, () throws(BusError) -> Message)] = [
        ("signal", { () throws(BusError) in
            try Message.signal(path: "/t", interface: "org.example.T", member: "S", arguments: values)
        }),
        ("method call", { () throws(BusError) in
            try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M", arguments: values)
        }),
        ("reply", { () throws(BusError) in
            return try receivedCall().makeReply(values)
        }),
    ]
    for (kind, build) in builders {
        do throws(BusError) {
            _ = try build()
            Issue.record("\(kind) with \(values) was accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.name == invalidArgs, "\(kind): \(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(kind): '\(error.message)' lacks '\(fragment)'",
                    sourceLocation: sourceLocation)
        }
    }
}

/// A method call as if received: libdbus aborts on replies to a message without serial.
func receivedCall() throws(BusError) -> Message {
    let call = try Message.methodCall(destination: nil, path: "/t", interface: "org.example.I", member: "M")
    dbus_message_set_serial(call.raw, 7)
    return call
}

/// Asserts that `build` fails with InvalidArgs mentioning `fragment`.
func expectInvalidName(_ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
                       _ build: () throws -> Message) {
    do {
        _ = try build()
        Issue.record("accepted an invalid name", sourceLocation: sourceLocation)
    } catch let error as BusError {
        #expect(error.name == invalidArgs, sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct WriterRejectionTests {
    @Test func stringsWithNUL() {
        expectRejected([.string("a\u{0}b")], mentioning: "string contains a NUL byte")
        expectRejected([.int32(1), .string("\u{0}")], mentioning: "NUL")
        expectRejected([.objectPath("/a\u{0}b")], mentioning: "object path contains a NUL byte")
        expectRejected([.signature("i\u{0}")], mentioning: "signature contains a NUL byte")
        expectRejected([.strings(["ok", "bad\u{0}"])], mentioning: "NUL")
        expectRejected([.vardict([("k\u{0}", .int32(1))])], mentioning: "NUL")
    }

    @Test(arguments: ["", "a", "a/b", "/a/", "//", "/a//b", "/a-b", "/ä", "/a.b"])
    func invalidObjectPaths(_ path: String) {
        expectRejected([.objectPath(path)], mentioning: "'\(path)' is not a valid object path")
    }

    @Test(arguments: ["a", "(i", "i)", "{sv}", "a{vs}", "z", "()", "a{sv", "ae", String(repeating: "i", count: 256)])
    func invalidSignatures(_ signature: String) {
        expectRejected([.signature(signature)], mentioning: "is not a valid signature")
    }

    @Test func arrayElementOfWrongType() {
        expectRejected([.array(elementSignature: "i", [.int32(1), .string("x")])],
                       mentioning: "array of 'i' holds an element of type 's'")
        expectRejected([.array(elementSignature: "v", [.int32(1)])], mentioning: "holds an element of type 'i'")
        // Deep inside other containers.
        expectRejected([.structure([.int32(1), .array(elementSignature: "ai", [.array(elementSignature: "i", [.uint32(1)])])])],
                       mentioning: "array of 'i' holds an element of type 'u'")
        expectRejected([.vardict([("k", .array(elementSignature: "s", [.objectPath("/x")]))])],
                       mentioning: "holds an element of type 'o'")
    }

    @Test(arguments: ["", "ii", "{sv}", "a", "(", "z", String(repeating: "a", count: 33) + "i"])
    func arrayElementSignatureNotASingleCompleteType(_ element: String) {
        expectRejected([.array(elementSignature: element, [])], mentioning: "is not a single complete type")
    }

    @Test func containersNestedTooDeeply() {
        // D-Bus allows 32 levels of arrays and 32 of structures; libdbus would build the
        // message, but no receiver would accept it.
        var array: Value = .int32(1)
        for _ in 0..<33 { array = .array(elementSignature: array.signature, [array]) }
        expectRejected([array], mentioning: "nested too deeply")

        var dictionary: Value = .int32(1)
        for _ in 0..<33 { dictionary = .dictionary(keySignature: "s", valueSignature: dictionary.signature, []) }
        expectRejected([dictionary], mentioning: "nested too deeply")

        var structure: Value = .int32(1)
        for _ in 0..<33 { structure = .structure([structure]) }
        expectRejected([structure], mentioning: "nested too deeply")

        // A single type longer than the 255-byte signature limit.
        expectRejected([.structure(Array(repeating: .int32(1), count: 300))], mentioning: "nested too deeply or too long")
    }

    @Test(arguments: ["v", "as", "(i)", "a{sv}", "", "ss", "z"])
    func dictionaryWithNonBasicKey(_ key: String) {
        expectRejected([.dictionary(keySignature: key, valueSignature: "s", [])],
                       mentioning: "dictionary key type '\(key)' is not a basic type")
    }

    @Test func dictionaryEntriesOfWrongType() {
        expectRejected([.dictionary(keySignature: "s", valueSignature: "v", [DictionaryEntry(.int32(1), .variant(.int32(1)))])],
                       mentioning: "dictionary a{sv} holds an entry of type {iv}")
        expectRejected([.dictionary(keySignature: "s", valueSignature: "v", [DictionaryEntry(.string("k"), .int32(1))])],
                       mentioning: "holds an entry of type {si}")
        expectRejected([.dictionary(keySignature: "s", valueSignature: "ii", [])], mentioning: "'ii' is not a single complete type")
    }

    @Test func emptyStructures() {
        expectRejected([.structure([])], mentioning: "a structure needs at least one field")
        expectRejected([.structure([.int32(1), .structure([])])], mentioning: "at least one field")
        expectRejected([.array(elementSignature: "()", [])], mentioning: "not a single complete type")
    }

    @Test func variantsHoldingInvalidValues() {
        // The variant's own signature must be checked before libdbus sees it.
        expectRejected([.variant(.structure([]))], mentioning: "'()'")
        expectRejected([.variant(.array(elementSignature: "zz", []))], mentioning: "'azz'")
        expectRejected([.variant(.dictionary(keySignature: "v", valueSignature: "s", []))], mentioning: "a{vs}")
        expectRejected([.variant(.string("a\u{0}"))], mentioning: "NUL")
        expectRejected([.variant(.variant(.array(elementSignature: "i", [.bool(true)])))], mentioning: "holds an element of type 'b'")
    }

    @Test func closedFileDescriptor() {
        expectRejected([.unixFD(-1)], mentioning: "file descriptor")
        expectRejected([.int32(1), .unixFD(987_654)], mentioning: "file descriptor")
    }

    @Test func invalidNamesInMethodCalls() {
        expectInvalidName("'not a bus name' is not a valid bus name") {
            try Message.methodCall(destination: "not a bus name", path: "/", interface: nil, member: "M")
        }
        expectInvalidName("is not a valid bus name") {
            try Message.methodCall(destination: "", path: "/", interface: nil, member: "M")
        }
        expectInvalidName("'relative' is not a valid object path") {
            try Message.methodCall(destination: nil, path: "relative", interface: nil, member: "M")
        }
        expectInvalidName("'nodots' is not a valid interface name") {
            try Message.methodCall(destination: nil, path: "/", interface: "nodots", member: "M")
        }
        expectInvalidName("'org..example' is not a valid interface name") {
            try Message.methodCall(destination: nil, path: "/", interface: "org..example", member: "M")
        }
        expectInvalidName("'1Bad' is not a valid member name") {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "1Bad")
        }
        expectInvalidName("'a.b' is not a valid member name") {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "a.b")
        }
        expectInvalidName("'' is not a valid member name") {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "")
        }
        // Names are checked before the arguments.
        expectInvalidName("is not a valid member name") {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "-", arguments: [.structure([])])
        }
    }

    @Test func invalidNamesInSignals() {
        expectInvalidName("'/x/' is not a valid object path") {
            try Message.signal(path: "/x/", interface: "org.example.I", member: "S")
        }
        expectInvalidName("'org.example.' is not a valid interface name") {
            try Message.signal(path: "/", interface: "org.example.", member: "S")
        }
        expectInvalidName("'S S' is not a valid member name") {
            try Message.signal(path: "/", interface: "org.example.I", member: "S S")
        }
        expectInvalidName("'nodots' is not a valid bus name") {
            try Message.signal(path: "/", interface: "org.example.I", member: "S", destination: "nodots")
        }
    }

    @Test func validNamesAreAccepted() throws {
        let call = try Message.methodCall(destination: ":1.42", path: "/org/example/A_b/c9", interface: "org.example.I_9",
                                          member: "Do_It2", arguments: [.int32(1)])
        #expect(call.kind == .methodCall)
        #expect(call.destination == ":1.42")
        #expect(call.path == "/org/example/A_b/c9")
        #expect(call.interface == "org.example.I_9")
        #expect(call.member == "Do_It2")
        let signal = try Message.signal(path: "/", interface: "org.example.I", member: "S", destination: "org.example.Peer")
        #expect(signal.kind == .signal)
        #expect(signal.destination == "org.example.Peer")
        #expect(signal.arguments.isEmpty)
        #expect(signal.signature == "")
    }

    @Test func errorReplies() throws {
        let call = try receivedCall()
        let reply = call.makeErrorReply(BusError("org.example.Error.Custom", "went wrong"))
        #expect(reply.kind == .error)
        #expect(reply.error == BusError("org.example.Error.Custom", "went wrong"))
        // An invalid error name falls back to Failed; NUL cuts the message short.
        let odd = call.makeErrorReply(BusError("not an error name", "first\u{0}second"))
        #expect(odd.error == BusError("org.freedesktop.DBus.Error.Failed", "first"))
        #expect(reply.replySerial == 7)
        #expect(call.error == nil)
        let ok = try call.makeReply([.int32(1)])
        #expect(ok.kind == .methodReturn)
        #expect(ok.replySerial == 7)
        #expect(ok.arguments == [.int32(1)])
    }
}
