// Writes the marshalled D-Bus messages that seed fuzz/corpus/client_options and
// fuzz/corpus/dbus_message. Built and run by `scripts/fuzz.sh --seeds` (the output
// is committed; run it again only to change the seeds).
@testable import DBus
import CDBus
import Glibc

let manager = "/org/orientationd/Orientation1"
let service = "org.orientationd.Orientation1"

func createClient(_ options: Value) throws(BusError) -> Message {
    let message = try Message.methodCall(destination: service, path: manager, interface: service,
                                         member: "CreateClient", arguments: [options])
    dbus_message_set_sender(message.raw, ":1.42")
    return message
}

func write(_ message: Message, to path: String) {
    dbus_message_set_serial(message.raw, 7)
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var length: Int32 = 0
    guard dbus_message_marshal(message.raw, &buffer, &length) != 0, let buffer else { fatalError("marshal \(path)") }
    defer { dbus_free(buffer) }
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    fwrite(buffer, 1, Int(length), file)
    fclose(file)
    print("\(path): \(length) bytes")
}

@main
enum MakeDBusSeeds {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else { fatalError("usage: make-dbus-seeds CLIENT_OPTIONS_DIR DBUS_MESSAGE_DIR") }
        let optionsDirectory = arguments[1], messageDirectory = arguments[2]

        let options: [(String, Value)] = [
            ("empty", .vardict([])),
            ("camera", .vardict([("SupportedOrientations", .strings(["normal"])), ("FollowsLock", .bool(false))])),
            ("reader", .vardict([("SupportedOrientations", .strings(["normal", "left-up", "right-up"])),
                                 ("PreferredOrientation", .string("normal"))])),
            ("all", .vardict([("SupportedOrientations", .strings(["normal", "left-up", "bottom-up", "right-up"])),
                              ("PreferredOrientation", .string("right-up")), ("FollowsLock", .bool(true))])),
            ("landscape", .vardict([("SupportedOrientations", .strings(["left-up", "right-up"]))])),
            ("preferred-only", .vardict([("PreferredOrientation", .string("bottom-up"))])),
            ("unknown-key", .vardict([("Orientation", .string("normal"))])),
            ("wrong-type", .vardict([("FollowsLock", .string("yes")), ("SupportedOrientations", .string("normal"))])),
            ("duplicate", .vardict([("FollowsLock", .bool(true)), ("FollowsLock", .bool(false))])),
            ("bad-names", .vardict([("SupportedOrientations", .strings(["normal", "normal", "undefined", "upside-down"]))])),
            ("empty-list", .vardict([("SupportedOrientations", .strings([]))])),
            ("not-supported", .vardict([("SupportedOrientations", .strings(["normal"])), ("PreferredOrientation", .string("left-up"))])),
            ("nested-variant", .vardict([("FollowsLock", .variant(.bool(true)))])),
            ("a-ss", .dictionary(keySignature: "s", valueSignature: "s", [DictionaryEntry(.string("FollowsLock"), .string("true"))])),
        ]
        for (name, value) in options {
            do {
                write(try createClient(value), to: "\(optionsDirectory)/\(name).msg")
            } catch {
                fatalError("\(name): \(error)")
            }
        }

        do {
            let call = try createClient(options[3].1)
            write(call, to: "\(messageDirectory)/create-client.msg")
            write(try call.makeReply([.objectPath(manager + "/Client/1")]), to: "\(messageDirectory)/create-client-reply.msg")
            write(call.makeErrorReply(.invalidArgs("unknown orientation 'upside-down'")), to: "\(messageDirectory)/error.msg")
            write(try Message.methodCall(destination: service, path: manager + "/Client/1", interface: service + ".Client",
                                         member: "Start"), to: "\(messageDirectory)/start.msg")
            write(try Message.methodCall(destination: service, path: manager, interface: "org.freedesktop.DBus.Properties",
                                         member: "GetAll", arguments: [.string(service)]), to: "\(messageDirectory)/getall.msg")
            write(try Message.signal(path: manager + "/Client/1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                     arguments: [.string(service + ".Client"),
                                                 .vardict([("DeviceOrientation", .string("left-up")), ("ContentRotation", .uint32(90)),
                                                           ("Active", .bool(true))]),
                                                 .strings([])], destination: ":1.42"),
                  to: "\(messageDirectory)/properties-changed.msg")
            write(try Message.signal(path: manager, interface: service, member: "OrientationWillChange",
                                     arguments: [.string("normal"), .string("left-up"), .uint32(90)]),
                  to: "\(messageDirectory)/will-change.msg")
            // Every basic type, containers and nesting, in one body.
            write(try Message.methodCall(destination: nil, path: "/org/example/Fuzz", interface: "org.example.Fuzz", member: "All",
                                         arguments: [.byte(255), .bool(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5),
                                                     .int64(-6), .uint64(7), .double(-0.5), .string("ü"), .objectPath("/a/b"),
                                                     .signature("a{sv}"), .array(elementSignature: "(id)", [.structure([.int32(1), .double(2)])]),
                                                     .dictionary(keySignature: "y", valueSignature: "av", [DictionaryEntry(.byte(1), .array(elementSignature: "v", [.variant(.variant(.string("x")))]))]),
                                                     .array(elementSignature: "ay", [.array(elementSignature: "y", [.byte(0), .byte(1)])])]),
                  to: "\(messageDirectory)/all-types.msg")
        } catch {
            fatalError("\(error)")
        }
    }
}
