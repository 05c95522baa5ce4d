import DBus
@_exported import OrientationAPI
import Posix

/// One app's connection to orientationd: a client object that says which orientations
/// the app supports, and events that say how its interface should be laid out.
///
/// Events arrive as callbacks in the order the daemon sent them: for one rotation,
/// `.willChange` first, then `.changed` with the new state. The client follows the
/// daemon's bus name: if the daemon stops it reports `.serviceLost`; when it comes back
/// the client re-creates its object (and starts it again if it was started) by itself,
/// asynchronously, and reports `.attached` with the fresh state. No callback ever waits
/// for a reply.
///
/// Three ways to run it:
/// - on the project's `EventLoop` (`init(bus:loop:configuration:)`, below);
/// - on any other main loop, on the app's own thread (`init(bus:configuration:)`): watch
///   `descriptor` for readability (GLib `g_unix_fd_add`, Qt `QSocketNotifier`, epoll) and
///   call `dispatch()` when it is readable. No timeout is needed besides: the
///   connection's timeouts are timerfds behind the same descriptor;
/// - from Swift concurrency: `AsyncOrientationClient` (`for await event in client.events`).
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
    /// Which bus the daemon is on: `.system` (where it runs as a service), `.session`, or
    /// `.address("unix:path=…")`.
    public typealias Bus = Connection.Bus
    /// What a failed call throws: the D-Bus error name and message.
    public typealias Error = BusError

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
        /// The manager's GyroscopeName: the gyroscope fused with the accelerometer, "" when
        /// none is.
        public var gyroscopeName = ""
        /// The manager's RotationLocked.
        public var rotationLocked = false
        public init() {}
    }

    public enum Event: Sendable, Equatable {
        /// Sent before the interface orientation and/or content rotation change.
        case willChange(from: Orientation, to: Orientation, contentRotation: UInt32)
        /// The state after a change.
        case changed(State)
        /// The manager's tilt changed (tilt is not a per-client property).
        case tiltChanged(Tilt)
        /// An accelerometer appeared or went away, or its gyroscope did (the manager's
        /// HasSensor, SensorName, GyroscopeName: the last is in `state`).
        case sensorChanged(hasSensor: Bool, name: String)
        /// The manager's RotationLocked changed.
        case lockChanged(Bool)
        /// The daemon left the bus; the client waits for it to come back.
        case serviceLost
        /// A client object was (re-)created after the daemon (re)appeared; fresh state.
        case attached(State)
    }

    public let connection: Connection
    /// The loop the client runs on: the one it was given, or its own.
    public let loop: EventLoop
    public private(set) var configuration: Configuration
    public private(set) var state = State()
    /// The client object's path, nil while the daemon is away.
    public private(set) var objectPath: String?
    public var onEvent: ((Event) -> Void)?
    private var wantsStarted = false
    /// Created with `waitForService`: requests made while the daemon is away are kept
    /// and carried out when it appears.
    private let waitsForService: Bool
    /// Bumped whenever the daemon goes or comes: replies to an older attempt to attach
    /// are dropped.
    private var generation = 0

    /// Connects, creates the client object and reads its state. Throws when the bus or
    /// the daemon cannot be reached or refuses the configuration. With `waitForService`,
    /// a daemon that is not on the bus yet is not an error: the client starts detached
    /// (`isAttached` false), keeps what `start()` and `setSupported` ask for, and reports
    /// `.attached` when the daemon appears — what an app started before the daemon (or
    /// while it restarts) wants.
    public init(bus: Connection.Bus, loop: EventLoop, configuration: Configuration = .init(), waitForService: Bool = false) throws(BusError) {
        connection = try Connection.open(bus)
        self.loop = loop
        self.configuration = configuration
        waitsForService = waitForService
        try connection.addMatch("type='signal',sender='\(MessageBus.name)',interface='\(MessageBus.interface)',member='\(MessageBus.nameOwnerChanged)',arg0='\(Names.busName)'")
        try connection.addMatch(
            "type='signal',sender='\(Names.busName)',path='\(Names.managerPath)',interface='\(Names.propertiesInterface)',member='\(Names.propertiesChanged)'")
        connection.addHandler { [weak self] message in self?.handle(message) ?? false }
        do {
            try create()
        } catch where waitForService && Self.isAbsence(error) {
            objectPath = nil
        }
        connection.attach(to: loop)
    }

    /// The same, on a loop of the client's own, for apps with another main loop: watch
    /// `descriptor` and call `dispatch()` when it is readable.
    public convenience init(bus: Connection.Bus, configuration: Configuration = .init(), waitForService: Bool = false) throws(BusError) {
        let loop: EventLoop
        do { loop = try EventLoop() } catch { throw .failed("cannot create an event loop: \(error)") }
        try self.init(bus: bus, loop: loop, configuration: configuration, waitForService: waitForService)
    }

    /// Whether the client object exists (false while the daemon is away).
    public var isAttached: Bool { objectPath != nil }

    /// The errors that say the daemon is not on the bus (rather than refusing).
    private static func isAbsence(_ error: BusError) -> Bool {
        [MessageBus.serviceUnknown, MessageBus.nameHasNoOwner].contains(error.name)
    }

    deinit { connection.close() }

    // MARK: Another main loop

    /// Readable whenever the client has something to do (a message, a reply, a timeout).
    public var descriptor: Int32 { loop.descriptor }

    /// Does what is ready, never blocking; events are delivered from inside this call.
    public func dispatch() { loop.dispatchPending() }

    // MARK: Requests

    public func start() throws(BusError) {
        wantsStarted = true
        if objectPath == nil && waitsForService { return }
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
        if objectPath == nil && waitsForService {
            configuration.supported = supported
            configuration.preferred = preferred
            return
        }
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

    /// Sets the manager's RotationLocked without waiting (on the system bus it may need
    /// polkit's answer); `completion`, if given, gets nil or the daemon's error.
    public func setRotationLocked(_ locked: Bool, completion: ((BusError?) -> Void)? = nil) {
        guard let call = try? Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: Names.propertiesInterface, member: "Set",
            arguments: [.string(Names.managerInterface), .string(ManagerProperty.rotationLocked.rawValue), .variant(.bool(locked))]) else {
            completion?(.failed("cannot build the call"))
            return
        }
        connection.callAsync(call) { result in
            switch result {
            case .success: completion?(nil)
            case .failure(let error): completion?(error)
            }
        }
    }

    /// Reads one manager property.
    public func managerProperty(_ name: String) throws(BusError) -> Value {
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: Names.propertiesInterface,
            member: "Get", arguments: [.string(Names.managerInterface), .string(name)]))
        guard let value = reply.arguments.first?.unwrappedVariant else { throw .failed("empty reply") }
        return value
    }

    // MARK: Internals

    private typealias Names = OrientationAPI
    private typealias MessageBus = OrientationAPI.MessageBus

    /// CreateClient's options for the configuration.
    private var createOptions: [(String, Value)] {
        var options: [(String, Value)] = [("SupportedOrientations", .strings(configuration.supported.map(\.rawValue)))]
        if let preferred = configuration.preferred { options.append(("PreferredOrientation", .string(preferred.rawValue))) }
        if !configuration.followsLock { options.append(("FollowsLock", .bool(false))) }
        return options
    }

    private func create() throws(BusError) {
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: Names.managerInterface,
            member: "CreateClient", arguments: [.vardict(createOptions)]))
        guard let path = reply.arguments.first?.stringValue else { throw .failed("CreateClient returned no path") }
        objectPath = path
        if wantsStarted { try callClient("Start") }
        try refresh()
    }

    /// Re-creates (and restarts) the client object without waiting: each step is an
    /// asynchronous call whose reply continues the next; `.attached` comes last. A failure
    /// leaves the client detached, waiting for the daemon's next appearance.
    private func attach(_ attempt: Int) {
        guard let create = try? Message.methodCall(destination: Names.busName, path: Names.managerPath,
                                                   interface: Names.managerInterface, member: "CreateClient",
                                                   arguments: [.vardict(createOptions)]) else { return }
        connection.callAsync(create) { [weak self] result in
            guard let self, attempt == self.generation,
                  case .success(let reply) = result, let path = reply.arguments.first?.stringValue else { return }
            self.objectPath = path
            let finish = { [weak self] in
                self?.refreshAsync(attempt) { [weak self] in
                    guard let self else { return }
                    self.onEvent?(.attached(self.state))
                }
            }
            guard self.wantsStarted, let start = try? Message.methodCall(destination: Names.busName, path: path,
                                                                        interface: Names.clientInterface, member: "Start") else {
                finish()
                return
            }
            self.connection.callAsync(start) { [weak self] result in
                guard let self, attempt == self.generation, case .success = result else { return }
                finish()
            }
        }
    }

    /// `refresh()` without waiting: the client's and the manager's GetAll, then `done`.
    private func refreshAsync(_ attempt: Int, done: @escaping () -> Void) {
        guard let objectPath,
              let client = try? Message.methodCall(destination: Names.busName, path: objectPath, interface: Names.propertiesInterface,
                                                   member: "GetAll", arguments: [.string(Names.clientInterface)]),
              let manager = try? Message.methodCall(destination: Names.busName, path: Names.managerPath, interface: Names.propertiesInterface,
                                                    member: "GetAll", arguments: [.string(Names.managerInterface)]) else { return }
        connection.callAsync(client) { [weak self] result in
            guard let self, attempt == self.generation, case .success(let reply) = result else { return }
            if let entries = reply.arguments.first?.stringKeyedEntries { self.apply(entries) }
            self.connection.callAsync(manager) { [weak self] result in
                guard let self, attempt == self.generation, case .success(let reply) = result else { return }
                self.applyManager(reply.arguments.first?.stringKeyedEntries ?? [])
                done()
            }
        }
    }

    private func callClient(_ member: String, _ arguments: [Value] = []) throws(BusError) {
        guard let objectPath else { throw BusError(MessageBus.serviceUnknown, "orientationd is not running") }
        _ = try connection.call(try Message.methodCall(
            destination: Names.busName, path: objectPath, interface: Names.clientInterface, member: member, arguments: arguments))
    }

    /// Reads all client properties (and the manager's tilt).
    private func refresh() throws(BusError) {
        guard let objectPath else { return }
        let reply = try connection.call(try Message.methodCall(
            destination: Names.busName, path: objectPath, interface: Names.propertiesInterface,
            member: "GetAll", arguments: [.string(Names.clientInterface)]))
        if let entries = reply.arguments.first?.stringKeyedEntries { apply(entries) }
        let manager = try connection.call(try Message.methodCall(
            destination: Names.busName, path: Names.managerPath, interface: Names.propertiesInterface,
            member: "GetAll", arguments: [.string(Names.managerInterface)]))
        applyManager(manager.arguments.first?.stringKeyedEntries ?? [])
    }

    private func applyManager(_ entries: [(key: String, value: Value)]) {
        for (key, wrapped) in entries {
            let value = wrapped.unwrappedVariant
            switch key {
            case ManagerProperty.tilt.rawValue: state.tilt = value.stringValue.flatMap(Tilt.init(rawValue:)) ?? .undefined
            case ManagerProperty.hasSensor.rawValue: state.hasSensor = value.boolValue ?? false
            case ManagerProperty.sensorName.rawValue: state.sensorName = value.stringValue ?? ""
            case ManagerProperty.gyroscopeName.rawValue: state.gyroscopeName = value.stringValue ?? ""
            case ManagerProperty.rotationLocked.rawValue: state.rotationLocked = value.boolValue ?? false
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
        case (MessageBus.interface, MessageBus.nameOwnerChanged):
            guard args.count == 3, args[0].stringValue == Names.busName, let newOwner = args[2].stringValue else { return false }
            generation += 1
            if newOwner.isEmpty {
                if objectPath != nil {
                    objectPath = nil
                    onEvent?(.serviceLost)
                }
            } else {
                if objectPath != nil {
                    // Replaced without a gap: the old object went with the old daemon.
                    objectPath = nil
                    onEvent?(.serviceLost)
                }
                attach(generation)
            }
            return false
        case (Names.propertiesInterface, Names.propertiesChanged):
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
            if let locked = entries.first(where: { $0.key == ManagerProperty.rotationLocked.rawValue })?.value.unwrappedVariant.boolValue,
               locked != state.rotationLocked {
                state.rotationLocked = locked
                onEvent?(.lockChanged(locked))
            }
            let hasSensor = entries.first(where: { $0.key == ManagerProperty.hasSensor.rawValue })?.value.unwrappedVariant.boolValue
            let name = entries.first(where: { $0.key == ManagerProperty.sensorName.rawValue })?.value.unwrappedVariant.stringValue
            let gyroscope = entries.first(where: { $0.key == ManagerProperty.gyroscopeName.rawValue })?.value.unwrappedVariant.stringValue
            if hasSensor != nil || name != nil || gyroscope != nil {
                let changed = (hasSensor ?? state.hasSensor) != state.hasSensor || (name ?? state.sensorName) != state.sensorName
                    || (gyroscope ?? state.gyroscopeName) != state.gyroscopeName
                state.hasSensor = hasSensor ?? state.hasSensor
                state.sensorName = name ?? state.sensorName
                state.gyroscopeName = gyroscope ?? state.gyroscopeName
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
