import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Fault campaign 3: a corpus of malformed D-Bus calls (wrong signatures, unknown
/// members, interfaces and paths, wrong variant types in options and Set, huge arrays
/// and strings, deep nesting, calls on closed clients, calls on other connections'
/// clients) each gets the specified error; then 10,000 CreateClient from one connection
/// (LimitExceeded after 64). The daemon does not crash and its RSS stays flat over the
/// rounds. libdbus refuses invalid UTF-8 and over-deep nesting on the sending side, so
/// the corpus holds what does reach the daemon.
@Suite(.serialized) struct StressMalformedCallTests {
    static let campaign = "malformed calls"

    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let limitExceeded = "org.orientationd.Orientation1.Error.LimitExceeded"
    static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    static let properties = "org.freedesktop.DBus.Properties"

    struct Call {
        var category: String
        /// 0: the owner of `owned` and `closed`; 1: another connection.
        var caller = 0
        var destination = Peer.service
        var path: String
        var interface: String?
        var member: String
        var arguments: [Value] = []
        var expected: String
    }

    /// Nests `value` in `depth` variants.
    static func variants(_ depth: Int, _ value: Value) -> Value { (0..<depth).reduce(value) { inner, _ in .variant(inner) } }

    /// The corpus, for a started client `owned` of caller 0 and a closed one `closed`.
    static func corpus(owned: String, closed: String) -> [Call] {
        let manager = Peer.manager, mi = Peer.managerInterface, ci = Peer.clientInterface
        var calls: [Call] = []
        let wrongArguments: [[Value]] = [
            [], [.int32(1)], [.string("x")], [.bool(true)], [.uint32(1)], [.double(1)], [.byte(1)], [.int16(-1)],
            [.uint16(1)], [.int64(1)], [.uint64(1)], [.objectPath("/x")], [.signature("a{sv}")],
            [.variant(.vardict([]))], [.strings(["normal"])], [.array(elementSignature: "y", [])],
            [.dictionary(keySignature: "s", valueSignature: "s", [])], [.dictionary(keySignature: "i", valueSignature: "v", [])],
            [.structure([.string("a"), .variant(.int32(1))])], [.vardict([]), .vardict([])], [.vardict([]), .string("")],
        ]
        // Wrong signatures.
        for arguments in wrongArguments {
            calls.append(Call(category: "wrong signature", path: manager, interface: mi, member: "CreateClient", arguments: arguments, expected: invalidArgs))
            calls.append(Call(category: "wrong signature", path: manager, interface: nil, member: "CreateClient", arguments: arguments, expected: invalidArgs))
        }
        for member in ["Start", "Stop", "Close"] {
            for arguments in wrongArguments.dropFirst().prefix(8) {
                calls.append(Call(category: "wrong signature", path: owned, interface: ci, member: member, arguments: arguments, expected: invalidArgs))
            }
        }
        for arguments: [Value] in [[], [.strings(["normal"])], [.string("normal")], [.strings(["normal"]), .string(""), .string("")],
                                   [.string(""), .strings(["normal"])], [.strings(["normal"]), .int32(0)],
                                   [.array(elementSignature: "i", [.int32(0)]), .string("")]] {
            calls.append(Call(category: "wrong signature", path: owned, interface: ci, member: "SetSupportedOrientations",
                              arguments: arguments, expected: invalidArgs))
        }
        for path in [manager, owned] {
            for (member, arguments) in [("Get", []), ("Get", [.string(mi)]), ("Get", [.string(mi), .string("Tilt"), .string("x")]),
                                        ("Get", [.int32(1), .int32(2)]), ("Get", [.string(mi), .int32(2)]),
                                        ("Get", [.variant(.string(mi)), .variant(.string("Tilt"))]),
                                        ("GetAll", []), ("GetAll", [.int32(1)]), ("GetAll", [.string(mi), .string(mi)]),
                                        ("GetAll", [.strings([mi])]), ("Set", []), ("Set", [.string(mi), .string("RotationLocked")]),
                                        ("Set", [.string(mi), .string("RotationLocked"), .string("x")]),
                                        ("Set", [.string(mi), .string("RotationLocked"), .variant(.bool(true)), .variant(.bool(true))]),
                                        ("Set", [.string(mi), .variant(.bool(true)), .string("RotationLocked")])] as [(String, [Value])] {
                calls.append(Call(category: "wrong signature", path: path, interface: properties, member: member, arguments: arguments, expected: invalidArgs))
            }
            for member in ["Introspect"] {
                calls.append(Call(category: "wrong signature", path: path, interface: "org.freedesktop.DBus.Introspectable", member: member,
                                  arguments: [.string("x")], expected: invalidArgs))
            }
            // (org.freedesktop.DBus.Peer is answered by libdbus itself, whatever the arguments.)
        }

        // Wrong variant types and values in CreateClient's options.
        func option(_ key: String, _ value: Value, _ category: String = "bad option") {
            calls.append(Call(category: category, path: manager, interface: mi, member: "CreateClient",
                              arguments: [.vardict([(key, value)])], expected: invalidArgs))
        }
        let supportedValues: [Value] = [
            .string("normal"), .int32(0), .bool(true), .array(elementSignature: "i", [.int32(1)]), .vardict([]),
            .variant(.strings(["normal"])), .array(elementSignature: "o", [.objectPath("/normal")]), .array(elementSignature: "y", [.byte(1), .byte(2)]),
            .strings([]), .strings(["up"]), .strings(["normal", "normal"]), .strings(["undefined"]), .strings(["Normal"]), .strings([""]),
            .strings(["normal", "left-up", "bottom-up", "right-up", "normal"]),
        ]
        for value in supportedValues { option("SupportedOrientations", value) }
        for value: Value in [.strings(["normal"]), .int32(0), .bool(false), .objectPath("/normal"), .signature("s"), .string("undefined"),
                             .string("up"), .string("NORMAL"), .string(" normal"), .variant(.string("normal"))] {
            option("PreferredOrientation", value)
        }
        calls.append(Call(category: "bad option", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("SupportedOrientations", .strings(["normal"])), ("PreferredOrientation", .string("left-up"))])],
                          expected: invalidArgs))
        for value: Value in [.string("true"), .int32(1), .uint32(1), .byte(1), .strings([]), .variant(.bool(true)), .double(1)] {
            option("FollowsLock", value)
        }
        for key in ["", "Foo", "supportedOrientations", "FollowsLock ", "Supported\u{e9}", "Client", "\u{1F600}", String(repeating: "K", count: 100_000)] {
            option(key, .bool(true))
        }
        for key in ["FollowsLock", "SupportedOrientations"] {
            let value: Value = key == "FollowsLock" ? .bool(true) : .strings(["normal"])
            calls.append(Call(category: "bad option", path: manager, interface: mi, member: "CreateClient",
                              arguments: [.vardict([(key, value), (key, value)])], expected: invalidArgs))
        }

        // Set: wrong variant types, read-only and unknown properties.
        for value: Value in [.string("yes"), .int32(1), .uint32(0), .byte(1), .strings([]), .variant(.bool(true)), .double(0),
                             .objectPath("/"), .vardict([])] {
            calls.append(Call(category: "Set", path: manager, interface: properties, member: "Set",
                              arguments: [.string(mi), .string("RotationLocked"), .variant(value)], expected: invalidArgs))
        }
        for name in ["HasSensor", "SensorName", "SensorBackend", "Orientation", "Tilt", "ActiveClients"] {
            for value: Value in [.string("normal"), .bool(true)] {
                calls.append(Call(category: "Set", path: manager, interface: properties, member: "Set",
                                  arguments: [.string(mi), .string(name), .variant(value)], expected: propertyReadOnly))
            }
        }
        for name in ["SupportedOrientations", "PreferredOrientation", "Active", "DeviceOrientation", "InterfaceOrientation", "ContentRotation"] {
            for caller in [0, 1] {
                calls.append(Call(category: "Set", caller: caller, path: owned, interface: properties, member: "Set",
                                  arguments: [.string(ci), .string(name), .variant(.string("normal"))], expected: propertyReadOnly))
            }
        }
        for (path, interface) in [(manager, mi), (owned, ci)] {
            for name in ["Nope", "", "rotationlocked", String(repeating: "P", count: 100_000)] {
                calls.append(Call(category: "Set", path: path, interface: properties, member: "Set",
                                  arguments: [.string(interface), .string(name), .variant(.bool(true))], expected: unknownProperty))
                calls.append(Call(category: "Get", path: path, interface: properties, member: "Get",
                                  arguments: [.string(interface), .string(name)], expected: unknownProperty))
            }
            for other in ["org.example.Nope", "", interface == mi ? ci : mi, String(repeating: "I", count: 1_000_000)] {
                calls.append(Call(category: "Get", path: path, interface: properties, member: "Get",
                                  arguments: [.string(other), .string("Active")], expected: unknownInterface))
                calls.append(Call(category: "Set", path: path, interface: properties, member: "Set",
                                  arguments: [.string(other), .string("RotationLocked"), .variant(.bool(true))], expected: unknownInterface))
                if !other.isEmpty {
                    calls.append(Call(category: "Get", path: path, interface: properties, member: "GetAll",
                                      arguments: [.string(other)], expected: unknownInterface))
                }
            }
        }

        // Unknown members and interfaces.
        for (path, interface, member) in [(manager, mi, "Nope"), (manager, mi, "createclient"), (manager, mi, "CreateClient2"),
                                          (manager, mi, "Start"), (manager, mi, "Get"), (manager, mi, String(repeating: "M", count: 255)),
                                          (owned, ci, "CreateClient"), (owned, ci, "Nope"), (owned, ci, "start"),
                                          (manager, "org.freedesktop.DBus.Introspectable", "Nope"), (owned, "org.freedesktop.DBus.Introspectable", "Nope"),
                                          ("/org/orientationd", "org.freedesktop.DBus.Introspectable", "Nope"),
                                          (manager, properties, "Nope"), (owned, properties, "Delete")] as [(String, String?, String)] {
            calls.append(Call(category: "unknown member", path: path, interface: interface, member: member, expected: unknownMethod))
        }
        for (path, member) in [(manager, "Nope"), (owned, "Nope"), ("/org/orientationd", "Nope"), ("/", "CreateClient")] {
            calls.append(Call(category: "unknown member", path: path, interface: nil, member: member, expected: unknownMethod))
        }
        for (path, interface, member, arguments) in [
            (manager, "org.example.Nope", "CreateClient", [.vardict([])]), (manager, ci, "Start", []),
            (owned, mi, "CreateClient", [.vardict([])]), (manager, "org.freedesktop.DBus", "Hello", []),
            (manager, "net.hadess.SensorProxy", "ClaimAccelerometer", []), ("/org/orientationd", mi, "CreateClient", [.vardict([])]),
            ("/", "org.example.Nope", "Nope", []), (manager + "/Client", ci, "Start", []),
            (owned, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", []),
            (manager, "org.orientationd.Orientation1.Client.Extra", "Start", []),
        ] as [(String, String, String, [Value])] {
            calls.append(Call(category: "unknown interface", path: path, interface: interface, member: member, arguments: arguments,
                              expected: unknownInterface))
        }

        // Unknown paths.
        let deepPath = "/" + (0..<200).map { "n\($0)" }.joined(separator: "/")
        for path in ["/nope", "/org/orientationd/Orientation2", manager + "/Client/0", manager + "/Client/999999", manager + "/Client/abc",
                     manager + "/x", owned + "/sub", deepPath] {
            calls.append(Call(category: "unknown path", path: path, interface: mi, member: "CreateClient", arguments: [.vardict([])], expected: unknownObject))
            calls.append(Call(category: "unknown path", path: path, interface: ci, member: "Start", expected: unknownObject))
            calls.append(Call(category: "unknown path", path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect", expected: unknownObject))
        }

        // A closed client, from its owner and from another connection.
        for caller in [0, 1] {
            for (interface, member, arguments) in [(ci, "Start", []), (ci, "Stop", []), (ci, "Close", []),
                                                   (ci, "SetSupportedOrientations", [.strings(["normal"]), .string("")]),
                                                   (properties, "Get", [.string(ci), .string("Active")]), (properties, "GetAll", [.string(ci)]),
                                                   (properties, "Set", [.string(ci), .string("Active"), .variant(.bool(true))]),
                                                   ("org.freedesktop.DBus.Introspectable", "Introspect", [])] as [(String, String, [Value])] {
                calls.append(Call(category: "closed client", caller: caller, path: closed, interface: interface, member: member,
                                  arguments: arguments, expected: unknownObject))
            }
        }

        // Another connection's client.
        for interface in [ci, nil] as [String?] {
            for (member, arguments) in [("Start", []), ("Stop", []), ("Close", []),
                                        ("SetSupportedOrientations", [.strings(["normal"]), .string("")])] as [(String, [Value])] {
                calls.append(Call(category: "other's client", caller: 1, path: owned, interface: interface, member: member,
                                  arguments: arguments, expected: accessDenied))
            }
        }

        // Huge arrays and strings (libdbus allows arrays up to 64 MiB, messages up to 128 MiB).
        let many = (0..<200_000).map { _ in "normal" }
        calls.append(Call(category: "huge", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("SupportedOrientations", .strings(many))])], expected: invalidArgs))
        calls.append(Call(category: "huge", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("SupportedOrientations", .strings((0..<100_000).map { "o\($0)" }))])], expected: invalidArgs))
        calls.append(Call(category: "huge", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("PreferredOrientation", .string(String(repeating: "n", count: 4_000_000)))])], expected: invalidArgs))
        calls.append(Call(category: "huge", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict((0..<50_000).map { ("Key\($0)", .int32(Int32($0))) })], expected: invalidArgs))
        calls.append(Call(category: "huge", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.strings(many)], expected: invalidArgs))
        calls.append(Call(category: "huge", path: owned, interface: ci, member: "Start",
                          arguments: [.array(elementSignature: "y", [Value](repeating: .byte(7), count: 300_000))], expected: invalidArgs))
        calls.append(Call(category: "huge", path: owned, interface: ci, member: "SetSupportedOrientations",
                          arguments: [.strings(many), .string("")], expected: invalidArgs))
        calls.append(Call(category: "huge", path: owned, interface: ci, member: "SetSupportedOrientations",
                          arguments: [.strings(["normal"]), .string(String(repeating: "x", count: 4_000_000))], expected: invalidArgs))

        // Deep nesting (within libdbus's limit of 64).
        calls.append(Call(category: "deep nesting", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("SupportedOrientations", variants(50, .strings(["normal"])))])], expected: invalidArgs))
        calls.append(Call(category: "deep nesting", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("FollowsLock", .variant(variants(30, .structure([.bool(true)]))))])], expected: invalidArgs))
        let deepArray = (0..<30).reduce(Value.strings(["normal"])) { inner, _ in .array(elementSignature: inner.signature, [inner]) }
        calls.append(Call(category: "deep nesting", path: manager, interface: mi, member: "CreateClient", arguments: [deepArray], expected: invalidArgs))
        let deepStruct = (0..<30).reduce(Value.string("normal")) { inner, _ in .structure([inner]) }
        calls.append(Call(category: "deep nesting", path: manager, interface: mi, member: "CreateClient",
                          arguments: [.vardict([("SupportedOrientations", deepStruct)])], expected: invalidArgs))
        calls.append(Call(category: "deep nesting", path: manager, interface: properties, member: "Set",
                          arguments: [.string(mi), .string("RotationLocked"), variants(50, .bool(true))], expected: invalidArgs))
        calls.append(Call(category: "deep nesting", path: owned, interface: ci, member: "SetSupportedOrientations",
                          arguments: [deepArray, .string("")], expected: invalidArgs))

        // Unknown bus names: the bus answers, the daemon never sees them.
        for destination in ["org.orientationd.Nope", "org.orientationd.Orientation2", "net.hadess.SensorProxy"] {
            calls.append(Call(category: "unknown name (bus)", destination: destination, path: manager, interface: mi, member: "CreateClient",
                              arguments: [.vardict([])], expected: serviceUnknown))
        }
        return calls
    }

    /// Sends `call` and returns the error name it got ("reply" for a success, "refused
    /// by libdbus: …" when libdbus would not even build or send it).
    static func send(_ call: Call, from peer: Peer) -> String {
        let message: Message
        do {
            message = try Message.methodCall(destination: call.destination, path: call.path, interface: call.interface,
                                             member: call.member, arguments: call.arguments)
        } catch {
            return "refused by libdbus: \(error)"
        }
        do {
            _ = try peer.connection.call(message, timeoutMs: 20_000)
            return "reply"
        } catch {
            return error.name
        }
    }

    @Test func malformedCallsGetTheirErrorsAndTheDaemonStaysFlat() throws {
        let rounds = Stress.count(short: 1, full: 10)
        let createCount = Stress.count(short: 300, full: 10_000)
        _ = Stress.seed(Self.campaign)
        let started = Date()
        let fixture = try DaemonFixture()
        let owner = try fixture.peer(watchManager: false)
        let stranger = try fixture.peer(watchManager: false)
        let pid = fixture.daemon.pid
        fixture.hold(.normal, durationMs: 300)
        let owned = try owner.createClient()
        try owner.call(owned, Peer.clientInterface, "Start")
        let closed = try owner.createClient()
        try owner.call(closed, Peer.clientInterface, "Close")
        let corpus = Self.corpus(owned: owned, closed: closed)
        let reaching = corpus.filter { $0.expected != Self.serviceUnknown }.count
        #expect(reaching >= 200, "only \(reaching) calls reach the daemon")

        var rss = StressSeries("daemon RSS after each round", unit: " KB")
        rss.add(Stress.rssKB(pid))
        var mismatches: [String] = []
        var refused: [String: Int] = [:]
        var byError: [String: Int] = [:]
        var byCategory: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(Stress.full ? 600 : 90)
        var roundsDone = 0
        for round in 0..<rounds where Date() < deadline {
            for call in corpus {
                let got = Self.send(call, from: call.caller == 0 ? owner : stranger)
                if got.hasPrefix("refused by libdbus") {
                    refused[call.category, default: 0] += 1
                    continue
                }
                if round == 0 {
                    byError[call.expected.split(separator: ".").last.map(String.init) ?? call.expected, default: 0] += 1
                    byCategory[call.category, default: 0] += 1
                }
                if got != call.expected, mismatches.count < 50 {
                    let arguments = "\(call.arguments)".prefix(160)
                    mismatches.append("\(call.category): \(call.interface ?? "-").\(call.member.prefix(40)) on \(call.path.prefix(60)) \(arguments) → \(got), expected \(call.expected)")
                }
            }
            // A forged NameOwnerChanged from a peer (not the bus) must not remove the
            // owner's clients.
            if let forged = try? Message.signal(path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                                arguments: [.string(owner.connection.uniqueName), .string(owner.connection.uniqueName), .string("")],
                                                destination: Peer.service) {
                stranger.connection.send(forged)
                stranger.connection.flush()
            }
            #expect(try owner.get(owned, Peer.clientInterface, "Active") == .bool(true), "a forged NameOwnerChanged removed a client")
            #expect(fixture.daemon.process.isRunning, "orientationd died in round \(round); stderr:\n\(fixture.daemon.stderr.suffix(3000))")
            guard fixture.daemon.process.isRunning else { return }
            rss.add(Stress.rssKB(pid))
            roundsDone += 1
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) calls got another answer:\n\(mismatches.joined(separator: "\n"))")
        #expect(roundsDone == rounds, "\(roundsDone) of \(rounds) rounds within the time limit")

        // Many CreateClient from one connection: 64 clients, then LimitExceeded.
        let greedy = try fixture.peer(watchManager: false)
        var created = 0, limited = 0, other: [String: Int] = [:]
        let createStart = Date()
        for _ in 0..<createCount {
            let got = Self.send(Call(category: "", path: Peer.manager, interface: Peer.managerInterface, member: "CreateClient",
                                     arguments: [.vardict([])], expected: ""), from: greedy)
            switch got {
            case "reply": created += 1
            case Self.limitExceeded: limited += 1
            default: other[got, default: 0] += 1
            }
        }
        let createSeconds = Date().timeIntervalSince(createStart)
        #expect(created == 64 && limited == createCount - 64 && other.isEmpty, "created \(created), LimitExceeded \(limited), other \(other)")
        // The greedy connection leaves: its 64 clients go with it.
        greedy.connection.close()
        #expect(owner.waitUntil(seconds: 20) { StressClientKillTests.clientNodes(owner) == [String(owned.split(separator: "/").last!)] },
                "clients left: \(StressClientKillTests.clientNodes(owner).count)")
        #expect(fixture.daemon.process.isRunning)
        #expect(try owner.managerProperty("ActiveClients") == .uint32(1))
        rss.add(Stress.rssKB(pid))

        Stress.report(Self.campaign, "\(reaching) malformed calls reaching the daemon (+\(corpus.count - reaching) to unknown bus names) × \(roundsDone) rounds in "
                      + String(format: "%.1f s", Date().timeIntervalSince(started)) + ", \(mismatches.count) wrong answers")
        Stress.report(Self.campaign, "by category: " + byCategory.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Stress.report(Self.campaign, "by error: " + byError.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !refused.isEmpty {
            Stress.report(Self.campaign, "refused by libdbus before sending (not counted): " + refused.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        Stress.report(Self.campaign, "\(createCount) CreateClient from one connection in " + String(format: "%.1f s", createSeconds)
                      + ": \(created) created, \(limited) LimitExceeded, other \(other); all \(created) removed when it left")
        Stress.report(Self.campaign, rss.summary)
        // Flat: after the first round (allocator warm-up), RSS grows by less than 2 MB.
        #expect(rss.last - rss.values[Swift.min(1, rss.values.count - 1)] < 2048, "\(rss.values)")
    }
}
