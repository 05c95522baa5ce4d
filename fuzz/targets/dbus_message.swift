// Fuzz target: the D-Bus message reader (Sources/DBus/MessageReader.swift) and the
// writer's validation (MessageWriter.swift).
//
// Input starting with 'l' or 'B' (a message's endianness byte): libdbus demarshals
// and validates it, as it does every message that arrives; then the reader decodes
// its body (`Message.arguments`) and the header accessors run. The decoded values
// are written into a new message, marshalled, demarshalled and read again: the
// writer must accept what the reader produced (descriptors aside) and the round
// trip must give the same values.
//
// Any other input: a tree of `Value`s decoded from the bytes (FuzzBytes), including
// ill-typed arrays, bad signatures and nesting beyond D-Bus's limits. The writer
// either refuses it with InvalidArgs or builds a message that libdbus accepts on
// receipt and that reads back equal.
@testable import DBus
import CDBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    if let first = input.first, first == UInt8(ascii: "l") || first == UInt8(ascii: "B") {
        readReceived(input)
    } else {
        writeBuilt(Array(input))
    }
    return 0
}

private func readReceived(_ input: UnsafeRawBufferPointer) {
    guard let message = demarshal(input) else { return }
    let arguments = message.arguments
    _ = (message.kind, message.path, message.interface, message.member, message.sender, message.destination,
         message.errorName, message.signature, message.serial, message.replySerial, message.noReplyExpected, message.error)
    // The reader drops nothing libdbus validated: one value per complete type.
    var count = 0
    var signature = Substring(message.signature)
    while !signature.isEmpty {
        let type = singleType(signature)
        signature = signature.dropFirst(type.count)
        count += 1
    }
    precondition(arguments.count == count, "reader returned \(arguments.count) values for signature '\(message.signature)'")
    precondition(Value.signature(of: arguments) == message.signature,
                 "reader's values have signature '\(Value.signature(of: arguments))', message has '\(message.signature)'")
    guard !arguments.contains(where: containsFD) else { return }
    let copy: Message
    do {
        copy = try Message.methodCall(destination: nil, path: "/org/example/Fuzz", interface: nil, member: "Copy", arguments: arguments)
    } catch {
        preconditionFailure("writer refused values read from a valid message: \(error)")
    }
    roundTrip(copy, arguments)
}

private func writeBuilt(_ bytes: [UInt8]) {
    var stream = FuzzBytes(bytes)
    let flags = stream.byte()
    let path = flags & 1 == 0 ? "/org/example/Fuzz" : stream.string()
    let interface = flags & 2 == 0 ? nil : stream.string()
    let member = flags & 4 == 0 ? "Call" : stream.string()
    let destination = flags & 8 == 0 ? nil : stream.string()
    var values: [Value] = []
    for _ in 0..<(Int(flags >> 4) % 4 + 1) { values.append(stream.value()) }
    guard let message = try? Message.methodCall(destination: destination, path: path, interface: interface,
                                                member: member, arguments: values) else { return }
    roundTrip(message, values)
}

/// Marshals `message`, which the writer built from `values`, and reads it back as a
/// receiver would.
private func roundTrip(_ message: Message, _ values: [Value]) {
    guard let wire = marshal(message) else { preconditionFailure("libdbus cannot marshal a message the writer built") }
    let received = wire.withUnsafeBytes { demarshal($0) }
    guard let received else {
        preconditionFailure("the writer built a message that libdbus rejects on receipt: signature '\(message.signature.prefix(300))'")
    }
    let read = received.arguments
    precondition(same(read, values), "round trip changed the values: \(values) → \(read)")
}

/// The first complete type of a valid signature.
private func singleType(_ signature: Substring) -> Substring {
    var depth = 0
    var end = signature.startIndex
    repeat {
        let c = signature[end]
        end = signature.index(after: end)
        switch c {
        case "a": continue
        case "(", "{": depth += 1
        case ")", "}": depth -= 1
        default: break
        }
    } while depth > 0 || signature[signature.index(before: end)] == "a"
    return signature[..<end]
}
