import DBus
import OrientationEngine
import Posix

/// One app's connection to orientationd: a client object that says which orientations
/// the app supports, and events that say how its interface should be laid out.
///
/// Events arrive as callbacks on the `EventLoop` the client was made with, in the order
/// the daemon sent them: for one rotation, `.willChange` first, then `.changed` with the
/// new state. The client follows the daemon's bus name: if the daemon stops it reports
/// `.serviceLost`; when it comes back the client re-creates its object (and starts it
/// again if it was started) by itself and reports `.attached` with the fresh state.
///
/// ```swift
/// let loop = try EventLoop()
/// let client = try OrientationClient(bus: .session, loop: loop,
///                                    configuration: .init(supported: [.normal]))
/// client.onEvent = { event in
///     if case .willChange(_, _, let rotation) = event { rotateIcons(by: rotation) }
/// }
/// try client.start()
/// _ = loop.run()
/// ```
public final class OrientationClient {
    /// What the app supports (CreateClient's options).
    public struct Configuration: Sendable, Equatable {
        public var supported: [Orientation]
        /// nil: the daemon's default (first supported in the order normal, left-up,
        /// bottom-up, right-up).
        public var preferred: Orientation?
        public var followsLock: Bool

        public init(supported: [Orientation] = Orientation.defined, preferred: Orientation? = nil, followsLock: Bool = true) {
            self.supported = supported
            self.preferred = preferred
            self.followsLock = followsLock
        }
    }

    /// The client object's properties, plus the manager's tilt.
    public struct State: Sendable, Equatable {
        public var active = false
        public var deviceOrientation: Orientation = .undefined
        public var interfaceOrientation: Orientation = .undefined
        public var contentRotation: UInt32 = 0
        public var supported: [Orientation] = []
        public var preferred: Orientation = .undefined
        public var tilt: Tilt = .undefined
        /// The manager's HasSensor and SensorName.
        public var hasSensor = false
        public var sensorName = ""
        public init() {}
    }

    public enum Event: Sendable, Equatable {
        /// Sent before the interface orientation and/or content rotation change.
        case willChange(from: Orientation, to: Orientation, contentRotation: UInt32)
        /// The state after a change.
        case changed(State)
        /// The manager's tilt changed (tilt is not a per-client property).
        case tiltChanged(Tilt)
        /// An accelerometer appeared or went away (the manager's HasSensor, SensorName).
        case sensorChanged(hasSensor: Bool, name: String)
        /// The daemon left the bus; the client waits for it to come back.
        case serviceLost
        /// A client object was (re-)created after the daemon (re)appeared; fresh state.
        case attached(State)
    }

    public let connection: Connection
    public private(set) var configuration: Configuration
    public private(set) var state = State()
    /// The client object's path, nil while the daemon is away.
    public private(set) var objectPath: String?
    public var onEvent: ((Event) -> Void)?
    private var wantsStarted = false

    /// Connects, creates the client object and reads its state. Throws when the bus or
    /// the daemon cannot be reached or refuses the configuration.
    public init(bus: Connection.Bus, loop: EventLoop, configuration: Configuration = .init()) throws(BusError) {
        connection = try Connection.open(bus)
        self.configuration = configuration
        try connection.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Names.busName)'")
        try connection.addMatch("type='signal',sender='\(Names.busName)',path='\(Names.managerPath)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        connection.addHandler { [weak self] message in self?.handle(message) ?? false }
        try create()
        connection.attach(to: loop)
    }

    deinit { connection.close() }

    // MARK: Requests

    public func start() throws(BusError) {
        wantsStarted = true
        try callClient("Start")
        try refresh()
    }

    public func stop() throws(BusError) {
        wantsStarted = false
        try callClient("Stop")
        try refresh()
    }

    /// Changes the supported orientations; the interface orientation is re-evaluated.
    public func setSupported(_ supported: [Orientation], preferred: Orientation? = nil) throws(BusError) {
        try callClient("SetSupportedOrientations", [.strings(supported.map(\.rawValue)), .string(preferred?.rawValue ?? "")])
        configuration.supported = supported
        configuration.preferred = preferred
        try refresh()
    }

    /// Closes the client object; the client can no longer be used.
    public func close() {
        if objectPath != nil { try? callClient("Close") }
        objectPath = nil
        wantsStarted = false
    }

    // MARK: Manager helpers

    /// Reads one manager property.
    public func managerProperty(_ name: String) throws(BusError) -> Value {
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string(Names.managerInterface), .string(name)]))
        guard let value = reply.arguments.first?.unwrappedVariant else { throw .failed("empty reply") }
        return value
    }

    // MARK: Internals

    private typealias Names = OrientationAPI

    private func create() throws(BusError) {
        var options: [(String, Value)] = [("SupportedOrientations", .strings(configuration.supported.map(\.rawValue)))]
        if let preferred = configuration.preferred { options.append(("PreferredOrientation", .string(preferred.rawValue))) }
        if !configuration.followsLock { options.append(("FollowsLock", .bool(false))) }
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: Names.managerInterface,
            member: "CreateClient", arguments: [.vardict(options)]))
        guard let path = reply.arguments.first?.stringValue else { throw .failed("CreateClient returned no path") }
        objectPath = path
        if wantsStarted { try callClient("Start") }
        try refresh()
    }

    private func callClient(_ member: String, _ arguments: [Value] = []) throws(BusError) {
        guard let objectPath else { throw BusError("org.freedesktop.DBus.Error.ServiceUnknown", "orientationd is not running") }
        _ = try connection.call(try Message.methodCall(
            destination: Names.busName, path: objectPath, interface: Names.clientInterface, member: member, arguments: arguments))
    }

    /// Reads all client properties (and the manager's tilt).
    private func refresh() throws(BusError) {
        guard let objectPath else { return }
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", arguments: [.string(Names.clientInterface)]))
        if let entries = reply.arguments.first?.stringKeyedEntries { apply(entries) }
        let manager = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", arguments: [.string(Names.managerInterface)]))
        for (key, wrapped) in manager.arguments.first?.stringKeyedEntries ?? [] {
            let value = wrapped.unwrappedVariant
            switch key {
            case ManagerProperty.tilt.rawValue: state.tilt = value.stringValue.flatMap(Tilt.init(rawValue:)) ?? .undefined
            case ManagerProperty.hasSensor.rawValue: state.hasSensor = value.boolValue ?? false
            case ManagerProperty.sensorName.rawValue: state.sensorName = value.stringValue ?? ""
            default: break
            }
        }
    }

    private func apply(_ entries: [(key: String, value: Value)]) {
        for (key, wrapped) in entries {
            let value = wrapped.unwrappedVariant
            switch key {
            case ClientProperty.active.rawValue: state.active = value.boolValue ?? state.active
            case ClientProperty.deviceOrientation.rawValue: state.deviceOrientation = value.stringValue.flatMap(Orientation.init(rawValue:)) ?? state.deviceOrientation
            case ClientProperty.interfaceOrientation.rawValue: state.interfaceOrientation = value.stringValue.flatMap(Orientation.init(rawValue:)) ?? state.interfaceOrientation
            case ClientProperty.contentRotation.rawValue: state.contentRotation = value.uint32Value ?? state.contentRotation
            case ClientProperty.supportedOrientations.rawValue: state.supported = (value.stringArray ?? []).compactMap(Orientation.init(rawValue:))
            case ClientProperty.preferredOrientation.rawValue: state.preferred = value.stringValue.flatMap(Orientation.init(rawValue:)) ?? state.preferred
            default: break
            }
        }
    }

    private func handle(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        let args = message.arguments
        switch (message.interface, message.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard args.count == 3, args[0].stringValue == Names.busName, let newOwner = args[2].stringValue else { return false }
            if newOwner.isEmpty {
                if objectPath != nil {
                    objectPath = nil
                    onEvent?(.serviceLost)
                }
            } else {
                do {
                    try create()
                    onEvent?(.attached(state))
                } catch {
                    onEvent?(.serviceLost)
                }
            }
            return false
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard args.count == 3, let entries = args[1].stringKeyedEntries else { return false }
            if message.path == objectPath, args[0].stringValue == Names.clientInterface {
                apply(entries)
                onEvent?(.changed(state))
                return true
            }
            guard message.path == Names.managerPath else { return false }
            if let tilt = entries.first(where: { $0.key == ManagerProperty.tilt.rawValue })?.value.unwrappedVariant.stringValue,
               let value = Tilt(rawValue: tilt), value != state.tilt {
                state.tilt = value
                onEvent?(.tiltChanged(value))
            }
            let hasSensor = entries.first(where: { $0.key == ManagerProperty.hasSensor.rawValue })?.value.unwrappedVariant.boolValue
            let name = entries.first(where: { $0.key == ManagerProperty.sensorName.rawValue })?.value.unwrappedVariant.stringValue
            if hasSensor != nil || name != nil {
                let changed = (hasSensor ?? state.hasSensor) != state.hasSensor || (name ?? state.sensorName) != state.sensorName
                state.hasSensor = hasSensor ?? state.hasSensor
                state.sensorName = name ?? state.sensorName
                if changed { onEvent?(.sensorChanged(hasSensor: state.hasSensor, name: state.sensorName)) }
            }
            return false
        case (Names.clientInterface, "OrientationWillChange"):
            guard message.path == objectPath, args.count == 3,
                  let from = args[0].stringValue.flatMap(Orientation.init(rawValue:)),
                  let to = args[1].stringValue.flatMap(Orientation.init(rawValue:)),
                  let rotation = args[2].uint32Value else { return false }
            onEvent?(.willChange(from: from, to: to, contentRotation: rotation))
            return true
        default:
            return false
        }
    }
}
