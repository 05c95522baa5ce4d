import Foundation
import Glibc
@_spi(Testing) import Posix
import Testing
@_spi(Testing) @testable import DBus
import TestSupport

// ObjectTree and Connection on a real private dbus-daemon. The exporting connection and
// the calling connections share one EventLoop on the test's thread (callAsync + run
// with a deadline), except where the blocking `call` needs the exporter on a thread of
// its own.

final class Thermostat {
    var target: Int32 = 20
    var mode = "heat"
    var pending: [MethodCall] = []
    var lastSender = ""
}

let thermostatInterface = "org.example.Thermostat"
let thermostatPath = "/org/example/rooms/hall"

let thermostatTable = InterfaceTable<Thermostat>(
    name: thermostatInterface,
    doc: "A test thermostat.",
    methods: [
        .init("Add", in: [Argument("a", "i"), Argument("b", "i")], out: [Argument("sum", "i")], doc: "a + b") { object, call in
            object.lastSender = call.sender
            let args = call.arguments
            return .values([.int32((args[0].int32Value ?? 0) &+ (args[1].int32Value ?? 0))])
        },
        .init("Echo", in: [Argument("value", "v")], out: [Argument("value", "v"), Argument("signature", "g")],
              doc: "") { _, call in
            .values([call.arguments[0], .signature(call.arguments[0].unwrappedVariant.signature)])
        },
        .init("Fail", doc: "") { _, _ throws(BusError) in throw BusError("org.example.Error.Broken", "as requested") },
        .init("Later", in: [Argument("token", "s")], out: [Argument("token", "s")], doc: "") { object, call in
            object.pending.append(call)
            return .later
        },
        .init("Bad", out: [Argument("s", "s")], doc: "") { _, _ in .values([.string("nul\u{0}inside")]) },
    ],
    properties: [
        .init("Target", "i", doc: "", get: { .int32($0.target) }, set: { object, value, _ in
            object.target = value.int32Value ?? object.target
        }),
        .init("Mode", "s", flags: .emitsInvalidation, doc: "", get: { .string($0.mode) }, set: { object, value, _ in
            object.mode = value.stringValue ?? object.mode
        }),
        .init("Model", "s", flags: .constant, doc: "", get: { _ in .string("T-1000") }),
        .init("Limits", "(ii)", doc: "", get: { _ in .structure([.int32(5), .int32(30)]) }),
    ],
    signals: [.init("Alarm", [Argument("level", "u")], doc: "")])

/// A private bus, a shared loop, an exporting connection with a thermostat and a
/// calling connection.
/// The thermostat's signals a connection receives, kept in order; and a third connection
/// on the fixture's bus that asks for them by a match rule (without eavesdropping), while
/// the fixture's client adds none.
final class ThermostatSignals {
    private(set) var messages: [Message] = []

    init(on connection: Connection) {
        connection.addHandler { [weak self] message in
            guard message.kind == .signal, message.interface == thermostatInterface else { return false }
            self?.messages.append(message)
            return true
        }
    }

    static func withThirdConnection(_ f: Fixture) throws -> (third: Connection, client: ThermostatSignals, thirdSignals: ThermostatSignals) {
        let third = try f.bus.connect()
        third.attach(to: f.loop)
        let client = ThermostatSignals(on: f.client), thirdSignals = ThermostatSignals(on: third)
        try third.addMatch("type='signal',interface='\(thermostatInterface)'")
        return (third, client, thirdSignals)
    }
}

final class Fixture {
    let bus: TestBus
    let loop: EventLoop
    let server: Connection
    let client: Connection
    let tree: ObjectTree
    let thermostat = Thermostat()

    init() throws {
        bus = try TestBus()
        loop = try EventLoop()
        server = try bus.connect()
        client = try bus.connect()
        server.attach(to: loop)
        client.attach(to: loop)
        tree = ObjectTree(connection: server)
        tree.export(path: thermostatPath, interfaces: [thermostatTable.bind(to: thermostat)])
    }

    func stop() {
        tree.unexport(path: thermostatPath)
        client.close()
        server.close()
        bus.stop()
    }

    func methodCall(at path: String = thermostatPath, _ interface: String?, _ member: String, _ args: [Value] = []) throws -> Message {
        try Message.methodCall(destination: server.uniqueName, path: path, interface: interface, member: member, arguments: args)
    }

    /// Calls and returns the reply's arguments, or the error.
    func invoke(at path: String, _ interface: String?, _ member: String, _ args: [Value] = [],
                sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<[Value], BusError> {
        call(client, on: loop, try methodCall(at: path, interface, member, args), sourceLocation: sourceLocation)
            .map(\.arguments)
    }

    func invoke(_ interface: String?, _ member: String, _ args: [Value] = [],
                sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<[Value], BusError> {
        try invoke(at: thermostatPath, interface, member, args, sourceLocation: sourceLocation)
    }

    func properties(_ member: String, _ args: [Value], sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<[Value], BusError> {
        try invoke(at: thermostatPath, "org.freedesktop.DBus.Properties", member, args, sourceLocation: sourceLocation)
    }
}

func expectError(_ result: Result<[Value], BusError>, _ name: String, mentioning fragment: String = "",
                 sourceLocation: SourceLocation = #_sourceLocation) {
    switch result {
    case .success(let values):
        Issue.record("expected \(name), got a reply \(values)", sourceLocation: sourceLocation)
    case .failure(let error):
        #expect(error.name == name, "\(error)", sourceLocation: sourceLocation)
        if !fragment.isEmpty {
            #expect(error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", sourceLocation: sourceLocation)
        }
    }
}

let errorPrefix = "org.freedesktop.DBus.Error."

@Suite struct ObjectTreeTests {
    @Test func methodCallsAndErrors() throws {
        let f = try Fixture()
        defer { f.stop() }
        #expect(f.server.uniqueName.hasPrefix(":"))
        #expect(f.server.uniqueName != f.client.uniqueName)

        #expect(try f.invoke(thermostatInterface, "Add", [.int32(40), .int32(2)]) == .success([.int32(42)]))
        #expect(f.thermostat.lastSender == f.client.uniqueName)
        // Without an interface, the member is looked up across the object's interfaces.
        #expect(try f.invoke(nil, "Add", [.int32(-1), .int32(-2)]) == .success([.int32(-3)]))

        let nested: Value = .variant(.vardict([("a", .array(elementSignature: "(ia{sv})", [
            .structure([.int32(1), .vardict([("deep", .variant(.uint64(.max)))])]),
        ]))]))
        #expect(try f.invoke(thermostatInterface, "Echo", [nested]) == .success([nested, .signature("a{sv}")]))

        expectError(try f.invoke(thermostatInterface, "Add", [.string("40"), .int32(2)]), errorPrefix + "InvalidArgs",
                    mentioning: "takes arguments of type 'ii', not 'si'")
        expectError(try f.invoke(thermostatInterface, "Add", []), errorPrefix + "InvalidArgs")
        expectError(try f.invoke(thermostatInterface, "Nope"), errorPrefix + "UnknownMethod", mentioning: "Nope")
        expectError(try f.invoke(nil, "Nope"), errorPrefix + "UnknownMethod", mentioning: "Nope")
        expectError(try f.invoke("org.example.Other", "Add", [.int32(1), .int32(2)]), errorPrefix + "UnknownInterface",
                    mentioning: "org.example.Other")
        expectError(try f.invoke(at: "/org/example/nowhere", thermostatInterface, "Add", [.int32(1), .int32(2)]),
                    errorPrefix + "UnknownObject", mentioning: "/org/example/nowhere")
        expectError(try f.invoke(at: "/org/example/rooms/hall/below", nil, "Ping"), errorPrefix + "UnknownObject")

        // An error thrown by a handler reaches the caller unchanged.
        expectError(try f.invoke(thermostatInterface, "Fail"), "org.example.Error.Broken", mentioning: "as requested")
        // A reply the wire cannot carry becomes an error reply instead of no reply.
        expectError(try f.invoke(thermostatInterface, "Bad"), errorPrefix + "Failed", mentioning: "NUL")
    }

    @Test func properties() throws {
        let f = try Fixture()
        defer { f.stop() }
        #expect(try f.properties("Get", [.string(thermostatInterface), .string("Target")]) == .success([.variant(.int32(20))]))
        #expect(try f.properties("Get", [.string(thermostatInterface), .string("Limits")])
            == .success([.variant(.structure([.int32(5), .int32(30)]))]))

        let all: Value = .vardict([("Target", .int32(20)), ("Mode", .string("heat")), ("Model", .string("T-1000")),
                                   ("Limits", .structure([.int32(5), .int32(30)]))])
        #expect(try f.properties("GetAll", [.string(thermostatInterface)]) == .success([all]))
        // An empty interface name means all interfaces.
        #expect(try f.properties("GetAll", [.string("")]) == .success([all]))

        #expect(try f.properties("Set", [.string(thermostatInterface), .string("Target"), .variant(.int32(23))]) == .success([]))
        #expect(f.thermostat.target == 23)
        #expect(try f.properties("Get", [.string(thermostatInterface), .string("Target")]) == .success([.variant(.int32(23))]))

        expectError(try f.properties("Set", [.string(thermostatInterface), .string("Model"), .variant(.string("x"))]),
                    errorPrefix + "PropertyReadOnly", mentioning: "Model")
        expectError(try f.properties("Set", [.string(thermostatInterface), .string("Target"), .variant(.string("hot"))]),
                    errorPrefix + "InvalidArgs", mentioning: "has type 'i', not 's'")
        #expect(f.thermostat.target == 23)
        expectError(try f.properties("Set", [.string(thermostatInterface), .string("Nope"), .variant(.int32(1))]),
                    errorPrefix + "UnknownProperty", mentioning: "Nope")
        expectError(try f.properties("Get", [.string(thermostatInterface), .string("Nope")]),
                    errorPrefix + "UnknownProperty", mentioning: "Nope")
        expectError(try f.properties("Get", [.string("org.example.Other"), .string("Target")]),
                    errorPrefix + "UnknownInterface", mentioning: "org.example.Other")
        expectError(try f.properties("GetAll", [.string("org.example.Other")]), errorPrefix + "UnknownInterface")
        expectError(try f.properties("Get", [.string(thermostatInterface)]), errorPrefix + "InvalidArgs",
                    mentioning: "'ss'")
        expectError(try f.properties("Set", [.string(thermostatInterface), .string("Target"), .int32(1)]),
                    errorPrefix + "InvalidArgs", mentioning: "'ssv'")
        expectError(try f.properties("Frobnicate", []), errorPrefix + "UnknownMethod")
    }

    @Test func introspectionAndPeer() throws {
        let f = try Fixture()
        defer { f.stop() }
        let other = Thermostat()
        f.tree.export(path: "/org/example/rooms/10", interfaces: [thermostatTable.bind(to: other)])
        f.tree.export(path: "/org/example/rooms/9", interfaces: [thermostatTable.bind(to: other)])
        f.tree.export(path: "/org/example/rooms/kitchen/oven", interfaces: [])

        let objectXML = Introspection.xml(interfaces: [.peer, .introspectable, .properties, thermostatTable.description])
        #expect(try f.invoke("org.freedesktop.DBus.Introspectable", "Introspect") == .success([.string(objectXML)]))

        let roomsXML = Introspection.xml(interfaces: [.peer, .introspectable], children: ["9", "10", "hall", "kitchen"])
        #expect(try f.invoke(at: "/org/example/rooms", "org.freedesktop.DBus.Introspectable", "Introspect", [])
            == .success([.string(roomsXML)]))
        #expect(try f.invoke(at: "/", nil, "Introspect", [])
            == .success([.string(Introspection.xml(interfaces: [.peer, .introspectable], children: ["org"]))]))
        expectError(try f.invoke(at: "/org/example/rooms", "org.freedesktop.DBus.Introspectable", "Introspect", [.int32(1)]),
                    errorPrefix + "InvalidArgs")

        #expect(try f.invoke("org.freedesktop.DBus.Peer", "Ping") == .success([]))
        #expect(try f.invoke(at: "/org", "org.freedesktop.DBus.Peer", "Ping", []) == .success([]))
        switch try f.invoke("org.freedesktop.DBus.Peer", "GetMachineId") {
        case .success(let values): #expect(values.first?.stringValue?.count == 32)
        case .failure(let error): #expect(error.name == errorPrefix + "Failed")  // no machine id in this container
        }

        // A parent node has no Properties and no table interfaces.
        expectError(try f.invoke(at: "/org/example/rooms", thermostatInterface, "Add", [.int32(1), .int32(2)]),
                    errorPrefix + "UnknownInterface")
        #expect(f.tree.isExported("/org/example/rooms/9"))
        #expect(!f.tree.isExported("/org/example/rooms"))
        f.tree.unexport(path: "/org/example/rooms/9")
        expectError(try f.invoke(at: "/org/example/rooms/9", nil, "Ping"), errorPrefix + "UnknownObject")
        withExtendedLifetime(other) {}
    }

    @Test func deferredReply() throws {
        let f = try Fixture()
        defer { f.stop() }
        var result: Result<Message, BusError>?
        f.client.callAsync(try f.methodCall(thermostatInterface, "Later", [.string("t1")])) { result = $0 }
        wait(on: f.loop, "the call to arrive") { f.thermostat.pending.isEmpty }
        // Nothing has been answered yet; let the loop run a little to be sure no reply
        // went out by itself.
        _ = f.loop.run(until: MonotonicClock.milliseconds() + 50) { result == nil }
        #expect(result == nil)

        let pending = f.thermostat.pending.removeFirst()
        #expect(pending.arguments == [.string("t1")])
        pending.reply([.string("done")])
        pending.reply([.string("again")])  // ignored
        pending.fail(.failed("too late"))  // ignored
        wait(on: f.loop, "the deferred reply") { result == nil }
        guard case .success(let reply) = result else {
            Issue.record("expected a reply, got \(String(describing: result))")
            return
        }
        #expect(reply.arguments == [.string("done")])
        #expect(reply.kind == .methodReturn)

        // A deferred failure.
        var second: Result<Message, BusError>?
        f.client.callAsync(try f.methodCall(thermostatInterface, "Later", [.string("t2")])) { second = $0 }
        wait(on: f.loop, "the second call") { f.thermostat.pending.isEmpty }
        f.thermostat.pending.removeFirst().fail(.accessDenied("not you"))
        wait(on: f.loop, "the deferred error") { second == nil }
        guard case .failure(let error) = second else {
            Issue.record("expected an error")
            return
        }
        #expect(error == .accessDenied("not you"))
    }

    @Test func propertiesChangedCarriesValuesAndInvalidations() throws {
        let f = try Fixture()
        defer { f.stop() }
        var signals: [Message] = []
        f.client.addHandler { message in
            guard message.kind == .signal, message.member == "PropertiesChanged" else { return false }
            signals.append(message)
            return true
        }
        try f.client.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")

        f.thermostat.target = 25
        f.tree.emitPropertiesChanged(path: thermostatPath, interface: thermostatInterface,
                                     names: ["Target", "Mode", "Model", "Unknown"])
        wait(on: f.loop, "PropertiesChanged") { signals.isEmpty }
        let signal = try #require(signals.first)
        #expect(signal.path == thermostatPath)
        #expect(signal.interface == "org.freedesktop.DBus.Properties")
        #expect(signal.sender == f.server.uniqueName)
        #expect(signal.signature == "sa{sv}as")
        #expect(signal.arguments == [.string(thermostatInterface), .vardict([("Target", .int32(25))]), .strings(["Mode"])])

        // Only constant or unknown properties: nothing is sent. Checked by sending a
        // later signal and seeing it arrive first.
        signals.removeAll()
        f.tree.emitPropertiesChanged(path: thermostatPath, interface: thermostatInterface, names: ["Model"])
        f.tree.emitPropertiesChanged(path: "/not/exported", interface: thermostatInterface, names: ["Target"])
        f.tree.emitPropertiesChanged(path: thermostatPath, interface: thermostatInterface, names: ["Mode"])
        wait(on: f.loop, "the barrier signal") { signals.isEmpty }
        #expect(signals.count == 1)
        #expect(signals.first?.arguments == [.string(thermostatInterface), .vardict([]), .strings(["Mode"])])
    }

    @Test func unicastSignalReachesOnlyItsDestination() throws {
        let f = try Fixture()
        defer { f.stop() }
        let (third, clientSignals, thirdSignals) = try ThermostatSignals.withThirdConnection(f)
        defer { third.close() }

        f.tree.emitSignal(path: thermostatPath, interface: thermostatInterface, name: "Alarm",
                          arguments: [.uint32(3)], destination: f.client.uniqueName)
        wait(on: f.loop, "the unicast signal") { clientSignals.messages.isEmpty }
        #expect(clientSignals.messages.first?.arguments == [.uint32(3)])
        #expect(clientSignals.messages.first?.destination == f.client.uniqueName)
        #expect(clientSignals.messages.first?.member == "Alarm")

        // A broadcast from the same sender afterwards: the bus keeps one sender's order,
        // so once the third connection has the broadcast it would already have had the
        // unicast signal.
        f.tree.emitSignal(path: thermostatPath, interface: thermostatInterface, name: "Alarm", arguments: [.uint32(4)])
        wait(on: f.loop, "the broadcast signal") { thirdSignals.messages.isEmpty }
        #expect(thirdSignals.messages.map(\.arguments) == [[.uint32(4)]])
        #expect(thirdSignals.messages.first?.destination == nil)
    }

    /// One signal sent from many objects to many recipients (a rotation's fan-out, which
    /// marshals it once and copies it): each copy carries its own path and destination,
    /// and a broadcast of the same signal afterwards carries none.
    @Test func theSameSignalFromManyObjectsKeepsEachPathAndDestination() throws {
        let f = try Fixture()
        defer { f.stop() }
        let (third, clientSignals, thirdSignals) = try ThermostatSignals.withThirdConnection(f)
        defer { third.close() }
        let paths = [thermostatPath, "/org/example/Other", "/org/example/Third"]
        for path in paths {
            f.tree.emitSignal(path: path, interface: thermostatInterface, name: "Alarm", arguments: [.uint32(5)],
                              destination: f.client.uniqueName)
        }
        f.tree.emitSignal(path: "/org/example/Broadcast", interface: thermostatInterface, name: "Alarm", arguments: [.uint32(5)])
        wait(on: f.loop, "the broadcast") { thirdSignals.messages.isEmpty }
        wait(on: f.loop, "the unicast signals") { clientSignals.messages.count < paths.count }
        #expect(clientSignals.messages.map(\.path) == paths)
        #expect(clientSignals.messages.allSatisfy { $0.destination == f.client.uniqueName && $0.arguments == [.uint32(5)] && $0.member == "Alarm" })
        #expect(thirdSignals.messages.map(\.path) == ["/org/example/Broadcast"])
        #expect(thirdSignals.messages.first?.destination == nil)
        #expect(thirdSignals.messages.first?.arguments == [.uint32(5)])
    }

    @Test func blockingCallAgainstAnExporterOnItsOwnThread() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        let address = bus.address
        final class Box: @unchecked Sendable { var name = "" }
        let box = Box()
        let exporter = try LoopThread { loop in
            let connection = try Connection.open(.address(address))
            connection.attach(to: loop)
            let tree = ObjectTree(connection: connection)
            let object = Thermostat()
            tree.export(path: thermostatPath, interfaces: [thermostatTable.bind(to: object)])
            box.name = connection.uniqueName
            return KeepAlive([connection, tree, object])
        }
        defer { exporter.stop() }

        let client = try bus.connect()
        defer { client.close() }
        let reply = try client.call(try Message.methodCall(destination: box.name, path: thermostatPath,
                                                             interface: thermostatInterface, member: "Add",
                                                             arguments: [.int32(2), .int32(3)]), timeoutMs: 10_000)
        #expect(reply.arguments == [.int32(5)])
        #expect(reply.kind == .methodReturn)

        #expect(throws: BusError("org.example.Error.Broken", "as requested")) {
            _ = try client.call(try Message.methodCall(destination: box.name, path: thermostatPath,
                                                       interface: thermostatInterface, member: "Fail"), timeoutMs: 10_000)
        }
        do {
            _ = try client.call(try Message.methodCall(destination: box.name, path: "/none", interface: nil, member: "Ping"),
                                timeoutMs: 10_000)
            Issue.record("expected UnknownObject")
        } catch {
            #expect(error.name == errorPrefix + "UnknownObject")
        }

        // Requesting a well-known name, then calling through it.
        #expect(try client.requestName("org.example.TestClient") == .primaryOwner)
        #expect(try client.requestName("org.example.TestClient") == .alreadyOwner)
        let ping = try client.call(try Message.methodCall(destination: box.name, path: "/", interface: "org.freedesktop.DBus.Peer",
                                                          member: "Ping"), timeoutMs: 10_000)
        #expect(ping.arguments.isEmpty)
    }

    @Test func connectionLifecycle() throws {
        let bus = try TestBus()
        let loop = try EventLoop()
        let connection = try bus.connect()
        connection.attach(to: loop)
        #expect(connection.isConnected)
        var disconnected = 0
        connection.onDisconnect = { disconnected += 1 }

        // The bus going away is reported once through onDisconnect, never by exiting.
        bus.stop()
        wait(on: loop, "the disconnect") { disconnected == 0 }
        #expect(disconnected == 1)
        #expect(!connection.isConnected)

        // Calls on a lost connection fail instead of hanging.
        var result: Result<Message, BusError>?
        connection.callAsync(try Message.methodCall(destination: "org.example.X", path: "/", interface: nil, member: "M")) {
            result = $0
        }
        wait(on: loop, "the failed call") { result == nil }
        if case .success = result { Issue.record("a call on a lost connection succeeded") }

        connection.close()
        connection.close()  // idempotent
        #expect(!connection.isConnected)
        #expect(throws: BusError.self) {
            _ = try connection.call(try Message.methodCall(destination: "org.example.X", path: "/", interface: nil, member: "M"))
        }
        connection.send(try Message.signal(path: "/", interface: "org.example.I", member: "S"))  // dropped, no crash
    }

    @Test func openingABadAddressFails() {
        #expect(throws: BusError.self) { _ = try Connection.open(.address("unix:path=/nonexistent/orientationd-test-bus")) }
        #expect(Connection.Bus.address("unix:path=/x").description == "bus at unix:path=/x")
        #expect(Connection.Bus.system.description == "system bus")
    }
}
