import DBus
import OrientationEngine
import Posix
import Sensors

/// The manager object and its clients: turns sensor samples, through the engine, into
/// the manager's Orientation and Tilt and each client's interface orientation, and
/// announces every change in the contract's order.
public final class OrientationService {
    public static let maxClientsPerConnection = 64
    public static let maxClients = 4096

    private let connection: Connection
    private let tree: ObjectTree
    private let logger: Logger
    private let authorizer: Authorizer
    /// iio-sensor-proxy's interface, when `--sensor-proxy-compat` asked for it.
    private var compat: SensorProxyFacade?
    private var sensor: SensorBackend?
    private var engine: OrientationEngine
    /// Completes the engine's pending decision when the sensor falls silent (see
    /// `OrientationEngine.nextDeadlineMs`); disarmed, and free, while nothing is pending.
    private var deadlineTimer: Timer?
    private var armedDeadlineMs: Int64?
    /// Whether the current sensor's wrong scale was logged (once per sensor).
    private var scaleWarned = false

    // Manager state.
    private(set) var orientation: Orientation = .undefined
    private(set) var tilt: Tilt = .undefined
    private(set) var rotationLocked = false
    /// The engine's confirmed orientation, lock or not: what clients with
    /// FollowsLock=false see.
    private var sensorOrientation: Orientation = .undefined
    private var sensorRunning = false

    // Clients, by number; numbers only grow, so ascending order is creation order.
    private var clients: [UInt64: ClientObject] = [:]
    private var clientCountByOwner: [String: Int] = [:]
    private var nextClientID: UInt64 = 1
    private(set) var activeClients = 0

    public init(connection: Connection, loop: EventLoop, sensor: SensorBackend?, tunables: EngineTunables,
                authorizer: Authorizer, sensorProxyCompat: Bool = false, logger: Logger) {
        self.connection = connection
        tree = ObjectTree(connection: connection)
        self.sensor = sensor
        engine = OrientationEngine(tunables: tunables)
        self.authorizer = authorizer
        self.logger = logger
        if sensorProxyCompat { compat = SensorProxyFacade(service: self) }
        do {
            deadlineTimer = try Timer(loop: loop) { [weak self] in self?.engineDeadlineReached() }
        } catch {
            logger.warning("cannot create the settle timer (\(error)): a silent sensor settles only on its next event")
        }
    }

    /// The well-known names to own: the native one, and iio-sensor-proxy's in
    /// compatibility mode.
    public var busNames: [String] { [OrientationAPI.busName] + (compat == nil ? [] : [SensorProxyFacade.busName]) }


    /// The interfaces the daemon exports, for `--bus-introspect` and the documented XML.
    public static var interfaces: [InterfaceDescription] { [table.description, ClientObject.table.description] }

    /// Exports the manager and follows bus names so that clients die with their owner.
    /// Call before requesting the well-known name.
    public func export() throws(BusError) {
        tree.export(path: OrientationAPI.managerPath, interfaces: [Self.table.bind(to: self)])
        if let compat {
            tree.export(path: SensorProxyFacade.path, interfaces: [SensorProxyFacade.table.bind(to: compat)])
            tree.export(path: SensorProxyFacade.compassPath, interfaces: [SensorProxyFacade.compassTable.bind(to: compat)])
        }
        // Many kernels leave IIO sensors silent after suspend: re-arm on resume. Only
        // logind may say so: the match rule routes broadcasts from the name's owner, but
        // any peer can send a unicast signal to the daemon, so the sender is checked
        // against the owner of org.freedesktop.login1, followed with NameOwnerChanged.
        try connection.addMatch("type='signal',sender='\(Self.logind)',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'")
        connection.addHandler { [weak self] message in
            guard let self, message.kind == .signal, message.interface == "org.freedesktop.login1.Manager",
                  message.member == "PrepareForSleep" else { return false }
            guard let sender = message.sender, sender == self.logindOwner else {
                self.logger.debug("PrepareForSleep from \(message.sender ?? "?"), which is not \(Self.logind)'s owner: ignored")
                return false
            }
            guard message.arguments.first == .bool(false) else { return false }
            self.logger.info("resumed from sleep: re-arming the sensor")
            self.rearmSensor()
            return false
        }
        try connection.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
        connection.addHandler { [weak self] message in
            guard message.kind == .signal, message.sender == "org.freedesktop.DBus",
                  message.interface == "org.freedesktop.DBus", message.member == "NameOwnerChanged" else { return false }
            let args = message.arguments
            if args.count == 3, let name = args[0].stringValue, let newOwner = args[2].stringValue {
                if name == Self.logind {
                    self?.logindOwner = newOwner.isEmpty ? nil : newOwner
                } else if name.hasPrefix(":"), newOwner.isEmpty {
                    self?.ownerVanished(name)
                }
            }
            return false
        }
        // logind's owner now (NameOwnerChanged follows it from here on).
        if let call = try? Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                              interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                              arguments: [.string(Self.logind)]) {
            connection.callAsync(call) { [weak self] result in
                guard case .success(let reply) = result, let owner = reply.arguments.first?.stringValue,
                      self?.logindOwner == nil else { return }
                self?.logindOwner = owner
            }
        }
    }

    static let logind = "org.freedesktop.login1"
    /// The unique name that owns org.freedesktop.login1, the only peer whose
    /// PrepareForSleep counts.
    private var logindOwner: String?

    /// The sensor is read while a client is started or a compatibility claim is held.
    private var sensorWanted: Bool { activeClients > 0 || !(compat?.claimers.isEmpty ?? true) }

    var hasSensor: Bool { sensor != nil }
    var sensorName: String { sensor?.name ?? "" }
    var sensorKind: String { sensor?.kind.rawValue ?? "" }

    // MARK: Clients

    func createClient(owner: String, options: ClientOptions) throws(BusError) -> String {
        guard clients.count < Self.maxClients else {
            throw BusError(OrientationAPI.Error.limitExceeded, "the daemon already has \(Self.maxClients) clients")
        }
        let owned = clientCountByOwner[owner, default: 0]
        guard owned < Self.maxClientsPerConnection else {
            throw BusError(OrientationAPI.Error.limitExceeded, "a connection may own at most \(Self.maxClientsPerConnection) clients; close one first")
        }
        let client = ClientObject(id: nextClientID, owner: owner, options: options, device: view(for: options.followsLock))
        nextClientID += 1
        client.service = self
        clients[client.id] = client
        clientCountByOwner[owner] = owned + 1
        tree.export(path: client.path, interfaces: [ClientObject.table.bind(to: client)])
        logger.debug("client \(client.path) created by \(owner)")
        return client.path
    }

    /// Start, after polkit said yes (on the system bus).
    func requestStart(_ client: ClientObject, _ call: MethodCall) -> MethodCall.Reply {
        guard !client.active else { return .empty }
        authorizer.authorize(Authorizer.claimAction, for: call.sender) { [weak self, weak client] error in
            if let error { return call.fail(error) }
            guard let self, let client, self.clients[client.id] === client else {
                return call.fail(.unknownObject("the client was closed"))
            }
            self.start(client)
            call.reply([])
        }
        return .later
    }

    func start(_ client: ClientObject) {
        guard !client.active else { return }
        if !sensorWanted { claimSensor() }
        client.active = true
        activeClients += 1
        let device = view(for: client.options.followsLock)
        let interface = InterfacePolicy.reevaluated(device: device, current: client.interface,
                                                    supported: client.options.supported, preferred: client.options.preferred)
        announce(client, client.move(device: device, interface: interface), extra: [.active])
        emitManagerChanged([.activeClients])
    }

    func stop(_ client: ClientObject) {
        guard client.active else { return }
        client.active = false
        activeClients -= 1
        if !sensorWanted { releaseSensor() }
        tree.emitPropertiesChanged(path: client.path, interface: OrientationAPI.clientInterface, names: [ClientProperty.active.rawValue], destination: client.owner)
        emitManagerChanged([.activeClients])
    }

    func setSupported(_ client: ClientObject, _ supported: [Orientation], _ preferred: Orientation) {
        var names: [ClientProperty] = []
        if supported != client.options.supported { names.append(.supportedOrientations) }
        if preferred != client.options.preferred { names.append(.preferredOrientation) }
        client.options.supported = supported
        client.options.preferred = preferred
        // A stopped client keeps its last device orientation; a started one sees the current.
        let device = client.active ? view(for: client.options.followsLock) : client.device
        let interface = InterfacePolicy.reevaluated(device: device, current: client.interface,
                                                    supported: supported, preferred: preferred)
        announce(client, client.move(device: device, interface: interface), extra: names)
    }

    func close(_ client: ClientObject) {
        if client.active {
            client.active = false
            activeClients -= 1
            if !sensorWanted { releaseSensor() }
            emitManagerChanged([.activeClients])
        }
        clients[client.id] = nil
        let remaining = clientCountByOwner[client.owner, default: 1] - 1
        clientCountByOwner[client.owner] = remaining > 0 ? remaining : nil
        tree.unexport(path: client.path)
        client.service = nil
        logger.debug("client \(client.path) closed")
    }

    private func ownerVanished(_ owner: String) {
        processByOwner[owner] = nil
        releaseCompatClaim(owner)
        guard clientCountByOwner[owner] != nil else { return }
        let owned = clients.values.filter { $0.owner == owner }.sorted { $0.id < $1.id }
        logger.debug("\(owner) left the bus: removing \(owned.count) client(s)")
        for client in owned { close(client) }
    }

    // MARK: Clients of a process

    /// The process behind each owner asked about so far (unique names are never reused;
    /// an entry goes when its owner leaves the bus).
    private var processByOwner: [String: UInt32] = [:]

    /// ClientsForProcess: the started clients whose owning connection belongs to `pid`,
    /// in creation order. The bus says which process each owner is
    /// (GetConnectionUnixProcessID), asked without blocking and remembered.
    func requestClientsForProcess(_ pid: UInt32, _ call: MethodCall) -> MethodCall.Reply {
        let owners = Set(clients.values.filter(\.active).map(\.owner)).filter { processByOwner[$0] == nil }
        guard !owners.isEmpty else { return .values([Self.paths(clientsOf(pid))]) }
        var waiting = owners.count
        for owner in owners {
            guard let ask = try? Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                    interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                                    arguments: [.string(owner)]) else { waiting -= 1; continue }
            connection.callAsync(ask) { [weak self] result in
                if case .success(let reply) = result, let value = reply.arguments.first?.uint32Value {
                    self?.processByOwner[owner] = value
                }
                waiting -= 1
                guard waiting == 0 else { return }
                call.reply([Self.paths(self?.clientsOf(pid) ?? [])])
            }
        }
        if waiting == 0 { return .values([Self.paths(clientsOf(pid))]) }
        return .later
    }

    private static func paths(_ paths: [String]) -> Value { .array(elementSignature: "o", paths.map { .objectPath($0) }) }

    private func clientsOf(_ pid: UInt32) -> [String] {
        clients.keys.sorted().compactMap { id in
            guard let client = clients[id], client.active, processByOwner[client.owner] == pid else { return nil }
            return client.path
        }
    }

    // MARK: Hotplug

    /// Puts `newSensor` in place of the current one (nil: no sensor). Used by discovery
    /// when the best sensor appears, goes away or is replaced by a better one.
    ///
    /// Losing the sensor makes Orientation (and every client's device orientation)
    /// `undefined`; a new sensor is claimed at once while clients are started, and its
    /// first reading applies immediately.
    public func replaceSensor(_ newSensor: SensorBackend?) {
        if let sensor, let newSensor, sensor === newSensor { return }
        releaseSensor()
        let before = (hasSensor, sensorName, sensorKind)
        sensor = newSensor
        scaleWarned = false
        var names: [ManagerProperty] = []
        if before.0 != hasSensor { names.append(.hasSensor) }
        if before.1 != sensorName { names.append(.sensorName) }
        if before.2 != sensorKind { names.append(.sensorBackend) }
        emitManagerChanged(names)
        if names.contains(.hasSensor), compat != nil {
            tree.emitPropertiesChanged(path: SensorProxyFacade.path, interface: SensorProxyFacade.interface, names: ["HasAccelerometer"])
        }
        if newSensor == nil {
            engine.reset()
            sensorOrientation = .undefined
            publish(orientation: .undefined, tilt: .undefined)
        }
        if sensorWanted { claimSensor() }
    }

    /// Re-reads the sensor after the system resumed or its configuration changed: a
    /// fresh start of the same sensor while clients are started.
    public func rearmSensor() {
        guard sensorWanted else { return }
        releaseSensor()
        claimSensor()
    }

    /// Applies new engine tunables (configuration reload): a fresh engine, fed at once
    /// from a fresh reading while clients are started. Clients are kept.
    public func setTunables(_ tunables: EngineTunables) {
        guard tunables != engine.tunables else { return }
        engine = OrientationEngine(tunables: tunables)
        rearmSensor()
    }

    /// Stops reading the sensor, at exit: an IIO buffer left enabled would keep the
    /// device streaming after the daemon is gone. Called explicitly because releasing
    /// the service (and the sensor's deinit) at exit is not something to rely on.
    public func shutdown() {
        releaseSensor()
    }

    // MARK: Lock

    /// Setting RotationLocked, after polkit said yes (on the system bus).
    func requestRotationLocked(_ locked: Bool, _ call: MethodCall) -> MethodCall.Reply {
        authorizer.authorize(Authorizer.lockAction, for: call.sender, interactive: true) { [weak self] error in
            if let error { return call.fail(error) }
            self?.setRotationLocked(locked)
            call.reply([])
        }
        return .later
    }

    // MARK: Compatibility claims

    func requestCompatClaim(_ call: MethodCall) -> MethodCall.Reply {
        authorizer.authorize(Authorizer.compatClaimAction, for: call.sender) { [weak self] error in
            if let error { return call.fail(error) }
            guard let self, let compat = self.compat else { return call.fail(.failed("the service is stopping")) }
            let wasWanted = self.sensorWanted
            if compat.addClaim(call.sender) {
                self.logger.debug("\(call.sender) claimed the accelerometer (net.hadess.SensorProxy)")
                if !wasWanted { self.claimSensor() }
            }
            call.reply([])
        }
        return .later
    }

    func releaseCompatClaim(_ owner: String) {
        guard let compat, compat.removeClaim(owner) else { return }
        logger.debug("\(owner) released the accelerometer (net.hadess.SensorProxy)")
        if !sensorWanted { releaseSensor() }
    }

    func setRotationLocked(_ locked: Bool) {
        guard locked != rotationLocked else { return }
        rotationLocked = locked
        emitManagerChanged([.rotationLocked])
        if !locked { applyEngineState() }
    }

    // MARK: Sensor and engine

    private func claimSensor() {
        guard let sensor, !sensorRunning else { return }
        engine.reset()
        do {
            try sensor.start { [weak self] sample in self?.sensorSample(sample) }
            sensorRunning = true
        } catch {
            logger.warning("cannot start \(sensor.name): \(error)")
            return
        }
        // The fresh reading: Start returns with current properties.
        if let sample = sensor.currentSample() {
            engine.feed(sample)
            applyEngineState()
            armEngineDeadline()
        }
    }

    private func releaseSensor() {
        guard sensorRunning else { return }
        sensor?.stop()
        sensorRunning = false
        armEngineDeadline()
    }

    private func sensorSample(_ sample: Sample) {
        guard sensorWanted else { return }
        if engine.feed(sample) { applyEngineState() }
        armEngineDeadline()
        if !scaleWarned, let warning = engine.scaleWarning {
            scaleWarned = true
            logger.warning("\(sensor?.name ?? "sensor"): \(warning)")
        }
    }

    /// Arms the timer for the engine's pending decision, or disarms it when nothing is
    /// pending. Re-arms only when the deadline moved: one timerfd_settime per change.
    private func armEngineDeadline() {
        let deadline = sensorRunning ? engine.nextDeadlineMs : nil
        guard deadline != armedDeadlineMs else { return }
        armedDeadlineMs = deadline
        guard let deadline else {
            deadlineTimer?.disarm()
            return
        }
        deadlineTimer?.arm(afterMs: max(0, deadline - MonotonicClock.milliseconds()))
    }

    /// The sensor said nothing new by the deadline: its reading still holds (event-driven
    /// sensors are silent while nothing changes). Re-evaluates with it, stamped now. A
    /// sensor that has no reading to give (suppressed in laptop mode, gone) gives nothing.
    private func engineDeadlineReached() {
        armedDeadlineMs = nil
        guard sensorRunning, sensorWanted, let reading = sensor?.currentSample() else { return }
        var sample = reading
        sample.timeMs = max(sample.timeMs, MonotonicClock.milliseconds())
        if engine.feed(sample) { applyEngineState() }
        armEngineDeadline()
    }

    /// The device orientation a client sees.
    private func view(for followsLock: Bool) -> Orientation { followsLock ? orientation : sensorOrientation }

    /// Publishes the engine's state: manager first (will-change, then PropertiesChanged),
    /// then each started client (will-change, then PropertiesChanged), in creation order.
    private func applyEngineState() {
        // Flat or unknown keeps the last orientation.
        if engine.orientation != .undefined { sensorOrientation = engine.orientation }
        let newTilt = engine.tilt == .undefined ? tilt : engine.tilt
        publish(orientation: rotationLocked ? orientation : sensorOrientation, tilt: newTilt)
    }

    /// Announces a new manager orientation (and the engine's tilt), then updates the
    /// started clients.
    private func publish(orientation newOrientation: Orientation, tilt newTilt: Tilt) {
        var names: [ManagerProperty] = []
        if newOrientation != orientation {
            tree.emitSignal(path: OrientationAPI.managerPath, interface: OrientationAPI.managerInterface, name: "OrientationWillChange",
                            arguments: [.string(orientation.rawValue), .string(newOrientation.rawValue)])
            orientation = newOrientation
            names.append(.orientation)
        }
        if newTilt != tilt {
            tilt = newTilt
            names.append(.tilt)
        }
        emitManagerChanged(names)
        if let compat, !names.isEmpty {
            let compatNames = names.map { $0 == .orientation ? "AccelerometerOrientation" : "AccelerometerTilt" }
            for claimer in compat.claimers.sorted() {
                tree.emitPropertiesChanged(path: SensorProxyFacade.path, interface: SensorProxyFacade.interface,
                                           names: compatNames, destination: claimer)
            }
        }
        updateStartedClients()
    }

    private func updateStartedClients() {
        for id in clients.keys.sorted() {
            guard let client = clients[id], client.active else { continue }
            let device = view(for: client.options.followsLock)
            guard device != client.device else { continue }
            let interface = InterfacePolicy.afterDeviceChange(to: device, current: client.interface, supported: client.options.supported)
            announce(client, client.move(device: device, interface: interface))
        }
    }

    // MARK: Signals

    private func announce(_ client: ClientObject, _ change: ClientObject.Change, extra: [ClientProperty] = []) {
        if let will = change.willChange {
            tree.emitSignal(path: client.path, interface: OrientationAPI.clientInterface, name: "OrientationWillChange",
                            arguments: [.string(will.from.rawValue), .string(will.to.rawValue), .uint32(will.contentRotation)],
                            destination: client.owner)
        }
        let names = extra + change.properties
        if !names.isEmpty {
            tree.emitPropertiesChanged(path: client.path, interface: OrientationAPI.clientInterface, names: names.map(\.rawValue),
                                       destination: client.owner)
        }
    }

    private func emitManagerChanged(_ names: [ManagerProperty]) {
        guard !names.isEmpty else { return }
        tree.emitPropertiesChanged(path: OrientationAPI.managerPath, interface: OrientationAPI.managerInterface, names: names.map(\.rawValue))
    }
}
