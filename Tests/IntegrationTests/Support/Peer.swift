@_spi(Testing) import DBus
import Foundation
@_spi(Testing) import Posix
import TestSupport

/// A bus connection used by a test: makes calls and records every signal it receives.
final class Peer {
    let connection: Connection
    private(set) var signals: [Message] = []
    /// When each of `signals` was received (CLOCK_MONOTONIC ms).
    private(set) var signalTimesMs: [Int64] = []
    private(set) var received: [Message] = []

    static let service = "org.orientationd.Orientation1"
    static let manager = "/org/orientationd/Orientation1"
    static let managerInterface = "org.orientationd.Orientation1"
    static let clientInterface = "org.orientationd.Orientation1.Client"

    init(bus: TestBus, watchManager: Bool = true) throws {
        connection = try Connection.open(.address(bus.address))
        connection.addHandler { [unowned self] message in
            if message.kind == .signal {
                self.signals.append(message)
                self.signalTimesMs.append(MonotonicClock.milliseconds())
            }
            return false
        }
        if watchManager {
            try connection.addMatch("type='signal',sender='\(Self.service)',path='\(Self.manager)'")
        }
        try connection.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'")
    }

    /// Calls a method; returns the reply's arguments, or throws the error reply.
    @discardableResult
    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [Value] = [], destination: String = Peer.service) throws -> [Value] {
        let reply = try connection.call(try Message.methodCall(destination: destination, path: path, interface: interface,
                                                               member: member, arguments: arguments), timeoutMs: 10_000)
        return reply.arguments
    }

    /// Calls a method and returns the error it failed with (nil if it succeeded).
    func callError(_ path: String, _ interface: String, _ member: String, _ arguments: [Value] = []) -> BusError? {
        do {
            try call(path, interface, member, arguments)
            return nil
        } catch let error as BusError {
            return error
        } catch {
            return BusError("unexpected", "\(error)")
        }
    }

    func get(_ path: String, _ interface: String, _ property: String) throws -> Value {
        try call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(property)])[0].unwrappedVariant
    }

    func managerProperty(_ name: String) throws -> Value { try get(Self.manager, Self.managerInterface, name) }

    func set(_ path: String, _ interface: String, _ property: String, _ value: Value) throws {
        try call(path, "org.freedesktop.DBus.Properties", "Set", [.string(interface), .string(property), .variant(value)])
    }

    /// Creates a client with `options` and returns its path.
    func createClient(_ options: [(String, Value)] = []) throws -> String {
        guard let path = try call(Self.manager, Self.managerInterface, "CreateClient", [.vardict(options)]).first?.stringValue else {
            throw TestFailure("CreateClient returned no path")
        }
        return path
    }

    /// Processes incoming messages until `condition` holds or `seconds` pass.
    @discardableResult
    func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        connection.process(untilMs: MonotonicClock.milliseconds() + Int64(seconds * 1000)) { !condition() }
    }

    /// Waits for the service name to have an owner.
    func waitForService(seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let reply = try? call("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(Self.service)],
                                     destination: "org.freedesktop.DBus"),
               reply.first == .bool(true) { return true }
            waitUntil(seconds: 0.02) { false }
        }
        return false
    }

    /// Forgets the signals received so far.
    func clearSignals() {
        connection.dispatchQueued()
        signals.removeAll()
        signalTimesMs.removeAll()
    }

    /// Signals as "path interface.member args" lines, for readable comparisons.
    func signalSummaries(path: String? = nil) -> [String] {
        signals.filter { path == nil || $0.path == path }.map(summary)
    }

    /// A peer on `bus` with one client started, once `daemon` owns its name (else an
    /// error with the daemon's log).
    static func withStartedClient(on bus: TestBus, daemon: ChildProcess) throws -> Peer {
        let peer = try Peer(bus: bus)
        guard peer.waitForService() else { throw TestFailure("orientationd did not take its name; stderr:\n\(daemon.stderr)") }
        let client = try peer.createClient()
        try peer.call(client, clientInterface, "Start")
        return peer
    }

    /// The manager's OrientationWillChange signals so far, as summaries, leaving out those
    /// from or to undefined (the first defined orientation after Start).
    func orientationWillChanges() -> [String] {
        signalSummaries(path: Self.manager).filter { $0.contains("OrientationWillChange") && !$0.contains("undefined") }
    }

    func summary(_ m: Message) -> String {
        let args = m.arguments
        if m.member == "PropertiesChanged", args.count == 3, let entries = args[1].stringKeyedEntries {
            let body = entries.map { "\($0.key)=\(describe($0.value.unwrappedVariant))" }.joined(separator: ",")
            return "\(m.path ?? "") PropertiesChanged \(body)"
        }
        return "\(m.path ?? "") \(m.member ?? "") " + args.map(describe).joined(separator: ",")
    }

    private func describe(_ v: Value) -> String {
        switch v {
        case .string(let s), .objectPath(let s): s
        case .bool(let b): String(b)
        case .uint32(let u): String(u)
        case .double(let d): String(d)
        case .array(_, let items): "[" + items.map(describe).joined(separator: ",") + "]"
        default: "\(v)"
        }
    }
}
