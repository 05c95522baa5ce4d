import DBus
import OrientationEngine
import Posix
import Sensors
import OrientationAPI

/// The bus adapter of the service: exports the manager (and the compatibility facade),
/// turns method calls and bus events into events of the `ServiceCore`, and sends what the
/// core returns — in its order, with PropertiesChanged read from the same state. It owns
/// what needs the bus: polkit (through `Authorizer`), following owners and logind, the
/// processes behind owners, and the timer for the engine's deadline.
public final class OrientationService {
    public static let maxClientsPerConnection = ServiceCore.maxClientsPerConnection
    public static let maxClients = ServiceCore.maxClients

    /// Everything that is not the bus.
    public let core: ServiceCore
    private let connection: Connection
    private let tree: ObjectTree
    private let logger: Logger
    private let authorizer: Authorizer
    /// Where RotationLocked is kept across restarts (nil: it lasts as long as the daemon).
    private let lockState: LockState?
    /// Completes the engine's pending decision when the sensor falls silent (see
    /// `ServiceCore.engineDeadlineMs`); disarmed, and free, while nothing is pending.
    private var deadlineTimer: Timer?
    private var armedDeadlineMs: Int64?
    /// The bus handles of the exported objects (the object tree binds them weakly).
    private var clientObjects: [UInt64: ClientObject] = [:]
    private var facade: SensorProxyFacade?
    /// The facade's ambient light, proximity and compass (compatibility mode only).
    private var claimedSensors: [AuxiliaryKind: ClaimedSensor] = [:]
    /// Owners with a facade claim waiting for polkit, and those of them that left the bus
    /// meanwhile: a claim allowed after its caller has gone is not recorded (nothing
    /// would ever release it, and the sensor would be read for nobody).
    private var ownersAwaitingPolkit: [String: Int] = [:]
    private var departedWhileAwaiting: Set<String> = []
    /// An auxiliary sensor's device ended under its reader: discovery drops it.
    public var onAuxiliarySensorVanished: (AuxiliaryKind) -> Void = { _ in }
    /// Start and ClaimAccelerometer replies held until the sensor's first reading, so
    /// that they return with current properties without the loop ever blocking; a
    /// timer bounds the wait.
    private var repliesAwaitingReading: [MethodCall] = []
    private var firstReadingTimer: Timer?
    static let firstReadingWaitMs: Int64 = 200

    public init(connection: Connection, loop: EventLoop, sensor: SensorBackend?, tunables: EngineTunables,
                authorizer: Authorizer, sensorProxyCompat: Bool = false, lockState: LockState? = nil, logger: Logger) {
        self.connection = connection
        self.lockState = lockState
        tree = ObjectTree(connection: connection)
        core = ServiceCore(sensor: sensor, tunables: tunables, sensorProxyCompat: sensorProxyCompat)
        self.authorizer = authorizer
        self.logger = logger
        core.onSensorEmissions = { [weak self] emissions in
            guard let self else { return }
            self.send(emissions)
            // A reading arrived: replies held for the first one go now. (Not by asking
            // `awaitingFirstReading`, which reads a polled sensor once more per tick.)
            self.releaseHeldReplies()
        }
        // The lock as it was before a restart (nobody listens yet: nothing to announce).
        switch lockState?.load() {
        case .success(let saved)? where saved.locked:
            core.restoreRotationLock(orientation: saved.orientation)
            logger.info("rotation locked in \(saved.orientation.rawValue), as it was when the daemon last stopped (\(lockState?.path ?? ""))")
        case .failure(let error)?:
            logger.warning("\(error.message): the rotation starts unlocked")
        case .success?, nil:
            break
        }
        do {
            deadlineTimer = try Timer(loop: loop) { [weak self] in self?.engineDeadlineReached() }
            firstReadingTimer = try Timer(loop: loop) { [weak self] in self?.releaseHeldReplies() }
        } catch {
            logger.warning("cannot create the service's timers (\(error)): a silent sensor settles only on its next event")
        }
    }

    private var compat: Bool { core.compatClaimers != nil }

    /// The sensor is open and read: the daemon has periodic work (polls, a pending
    /// decision), as opposed to waiting for a call or a device.
    /// (The facade's light, proximity or compass being read counts too: its polls are
    /// periodic work, and a daemon that took itself for idle between them would hand its
    /// code back at every one.)
    public var readingSensor: Bool { core.readingSensor || claimedSensors.values.contains { $0.isReading } }

    /// The well-known names to own: the native one, and iio-sensor-proxy's in
    /// compatibility mode.
    public var busNames: [String] { [OrientationAPI.busName] + (compat ? [SensorProxyFacade.busName] : []) }

    /// The interfaces the daemon exports, for `--bus-introspect` and the documented XML.
    public static var interfaces: [InterfaceDescription] { [table.description, ClientObject.table.description] }

    /// The facade's interfaces (`--bus-introspect --sensor-proxy-compat`, and the
    /// documented dbus/net.hadess.SensorProxy.xml).
    public static var sensorProxyInterfaces: [InterfaceDescription] {
        [SensorProxyFacade.table.description, SensorProxyFacade.compassTable.description]
    }

    /// Exports the manager and follows bus names so that clients die with their owner.
    /// Call before requesting the well-known name.
    public func export() throws(BusError) {
        tree.export(path: OrientationAPI.managerPath, interfaces: [Self.table.bind(to: self)])
        if compat {
            for kind in AuxiliaryKind.allCases {
                let sensor = ClaimedSensor(kind: kind, logger: logger)
                sensor.onReading = { [weak self] in self?.announce(kind, presence: false) }
                sensor.onPresence = { [weak self] in self?.announce(kind, presence: true) }
                sensor.onVanished = { [weak self] in self?.onAuxiliarySensorVanished(kind) }
                claimedSensors[kind] = sensor
            }
            let facade = SensorProxyFacade(
                core: core,
                sensors: claimedSensors,
                claim: { [weak self] call in
                    guard let self else {
                        call.fail(.failed("the service is stopping"))
                        return .later
                    }
                    return self.requestCompatClaim(call)
                },
                release: { [weak self] owner in self?.releaseCompatClaim(owner) },
                claimOther: { [weak self] kind, call in
                    guard let self else {
                        call.fail(.failed("the service is stopping"))
                        return .later
                    }
                    return self.requestClaim(of: kind, call)
                })
            self.facade = facade
            tree.export(path: SensorProxyFacade.path, interfaces: [SensorProxyFacade.table.bind(to: facade)])
            tree.export(path: SensorProxyFacade.compassPath, interfaces: [SensorProxyFacade.compassTable.bind(to: facade)])
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

    // MARK: Clients

    func createClient(owner: String, options: ClientOptions) throws(BusError) -> String {
        let record: ClientRecord
        do { record = try core.createClient(owner: owner, options: options) } catch {
            throw BusError(OrientationAPI.Error.limitExceeded, error.message)
        }
        let object = ClientObject(record, service: self)
        clientObjects[record.id] = object
        tree.export(path: record.path, interfaces: [ClientObject.table.bind(to: object)])
        logger.debug("client \(record.path) created by \(owner)")
        return record.path
    }

    /// Start, after polkit said yes (on the system bus).
    func requestStart(_ client: ClientObject, _ call: MethodCall) -> MethodCall.Reply {
        guard client.record?.active == false else { return .empty }
        authorizer.authorize(Authorizer.claimAction, for: call.sender) { [weak self, weak client] error in
            if let error { return call.fail(error) }
            guard let self, let client, client.record != nil else { return call.fail(.unknownObject("the client was closed")) }
            self.send(self.core.start(client.id))
            self.replyWithReading(call)
        }
        return .later
    }

    /// Replies now, or once the sensor has given its first reading (at most
    /// `firstReadingWaitMs` later).
    private func replyWithReading(_ call: MethodCall) {
        guard core.awaitingFirstReading, let firstReadingTimer else { return call.reply([]) }
        if repliesAwaitingReading.isEmpty { firstReadingTimer.arm(afterMs: Self.firstReadingWaitMs) }
        repliesAwaitingReading.append(call)
    }

    private func releaseHeldReplies() {
        guard !repliesAwaitingReading.isEmpty else { return }
        firstReadingTimer?.disarm()
        let held = repliesAwaitingReading
        repliesAwaitingReading = []
        for call in held { call.reply([]) }
    }

    func stop(_ client: ClientObject) { send(core.stop(client.id)) }

    func setSupported(_ client: ClientObject, _ supported: [Orientation], _ preferred: Orientation) {
        send(core.setSupported(client.id, supported, preferred: preferred))
    }

    func close(_ client: ClientObject) {
        send(core.close(client.id))
        tree.unexport(path: client.path)
        clientObjects[client.id] = nil
        logger.debug("client \(client.path) closed")
    }

    private func ownerVanished(_ owner: String) {
        if ownersAwaitingPolkit[owner] != nil {
            departedWhileAwaiting.insert(owner)
            logger.debug("\(owner) left the bus while polkit was asked about its claim")
        }
        for sensor in claimedSensors.values { sensor.release(owner) }
        if core.compatClaimers?.contains(owner) == true { logger.debug("\(owner) released the accelerometer (net.hadess.SensorProxy)") }
        let (closed, emissions) = core.ownerVanished(owner)
        if !closed.isEmpty { logger.debug("\(owner) left the bus: removing \(closed.count) client(s)") }
        for client in closed {
            tree.unexport(path: client.path)
            clientObjects[client.id] = nil
        }
        send(emissions)
    }

    // MARK: Clients of a process

    /// ClientsForProcess: asks the bus for the process of each owner not known yet
    /// (without blocking), then answers from the core.
    func requestClientsForProcess(_ pid: UInt32, _ call: MethodCall) -> MethodCall.Reply {
        let owners = core.ownersWithoutProcess
        guard !owners.isEmpty else { return .values([clientPaths(ofProcess: pid)]) }
        var waiting = owners.count
        for owner in owners {
            guard let ask = try? Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                    interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                                    arguments: [.string(owner)]) else { waiting -= 1; continue }
            connection.callAsync(ask) { [weak self] result in
                if case .success(let reply) = result, let value = reply.arguments.first?.uint32Value {
                    self?.core.recordProcess(value, of: owner)
                }
                waiting -= 1
                guard waiting == 0, let self else { return }
                call.reply([self.clientPaths(ofProcess: pid)])
            }
        }
        if waiting == 0 { return .values([clientPaths(ofProcess: pid)]) }
        return .later
    }

    private func clientPaths(ofProcess pid: UInt32) -> Value {
        .array(elementSignature: "o", core.startedClients(ofProcess: pid).map { .objectPath($0.path) })
    }

    // MARK: Sensor

    /// Puts `newSensor` in place of the current one (nil: no sensor): discovery calls it
    /// when the best sensor appears, goes away or is replaced by a better one.
    public func replaceSensor(_ newSensor: SensorBackend?) { send(core.replaceSensor(newSensor)) }

    /// Re-reads the sensor after the system resumed or its configuration changed.
    public func rearmSensor() { send(core.rearmSensor()) }

    /// Applies new engine tunables (configuration reload); clients are kept.
    public func setTunables(_ tunables: EngineTunables) { send(core.setTunables(tunables)) }

    /// Stops reading the sensor, at exit: an IIO buffer left enabled would keep the
    /// device streaming after the daemon is gone. Called explicitly because releasing
    /// the service (and the sensor's deinit) at exit is not something to rely on.
    public func shutdown() {
        core.shutdown()
        for sensor in claimedSensors.values { sensor.shutdown() }
        armEngineDeadline()
    }

    /// The sensor said nothing new by the engine's deadline.
    private func engineDeadlineReached() {
        armedDeadlineMs = nil
        send(core.deadlineReached(nowMs: MonotonicClock.milliseconds()))
    }

    /// Arms the timer for the engine's pending decision, or disarms it when nothing is
    /// pending. Re-arms only when the deadline moved: one timerfd_settime per change.
    private func armEngineDeadline() {
        let deadline = core.engineDeadlineMs
        guard deadline != armedDeadlineMs else { return }
        armedDeadlineMs = deadline
        guard let deadline else {
            deadlineTimer?.disarm()
            return
        }
        deadlineTimer?.arm(afterMs: max(0, deadline - MonotonicClock.milliseconds()))
    }

    // MARK: Lock and compatibility claims

    /// Setting RotationLocked, after polkit said yes (on the system bus).
    func requestRotationLocked(_ locked: Bool, _ call: MethodCall) -> MethodCall.Reply {
        authorizer.authorize(Authorizer.lockAction, for: call.sender, interactive: true) { [weak self] error in
            if let error { return call.fail(error) }
            guard let self else { return call.fail(.failed("the service is stopping")) }
            let changed = self.core.rotationLocked != locked
            self.send(self.core.setRotationLocked(locked))
            if changed, let lockState = self.lockState,
               case .failure(let error) = lockState.save(.init(locked: locked, orientation: self.core.manager.orientation)) {
                self.logger.warning("\(error.message): RotationLocked holds until the daemon stops")
            }
            call.reply([])
        }
        return .later
    }

    func requestCompatClaim(_ call: MethodCall) -> MethodCall.Reply {
        authorizeClaim(call) { [weak self] in
            guard let self else { return call.fail(.failed("the service is stopping")) }
            if self.core.compatClaimers?.contains(call.sender) == false {
                self.logger.debug("\(call.sender) claimed the accelerometer (net.hadess.SensorProxy)")
            }
            self.send(self.core.addCompatClaim(call.sender))
            self.replyWithReading(call)
        }
        return .later
    }

    /// Asks polkit for iio-sensor-proxy's claim action; `granted` runs only if it said
    /// yes and the caller is still on the bus.
    private func authorizeClaim(_ call: MethodCall, granted: @escaping () -> Void) {
        let sender = call.sender
        ownersAwaitingPolkit[sender, default: 0] += 1
        authorizer.authorize(Authorizer.compatClaimAction, for: sender) { [weak self] error in
            guard let self else { return call.fail(.failed("the service is stopping")) }
            let left = self.departedWhileAwaiting.contains(sender)
            if let count = self.ownersAwaitingPolkit[sender], count > 1 {
                self.ownersAwaitingPolkit[sender] = count - 1
            } else {
                self.ownersAwaitingPolkit[sender] = nil
                self.departedWhileAwaiting.remove(sender)
            }
            if let error { return call.fail(error) }
            guard !left else {
                self.logger.debug("\(sender) left the bus before polkit answered its \(call.message.member ?? "claim"): not recorded")
                return call.fail(.failed("\(sender) left the bus"))
            }
            granted()
        }
    }

    func releaseCompatClaim(_ owner: String) {
        if core.compatClaimers?.contains(owner) == true { logger.debug("\(owner) released the accelerometer (net.hadess.SensorProxy)") }
        send(core.releaseCompatClaim(owner))
    }

    // MARK: Light, proximity, compass

    /// Puts `sensor` in place of the facade's `kind` sensor (nil: none); discovery calls
    /// it as sensors come and go. Nothing in native-only mode.
    public func replaceAuxiliarySensor(_ kind: AuxiliaryKind, _ sensor: AuxiliarySensor?) {
        claimedSensors[kind]?.replace(sensor)
    }

    /// ClaimLight, ClaimProximity (after polkit said yes, with iio-sensor-proxy's action)
    /// and ClaimCompass (which the bus policy keeps to GeoClue, as iio-sensor-proxy's
    /// does, with no polkit check).
    func requestClaim(of kind: AuxiliaryKind, _ call: MethodCall) -> MethodCall.Reply {
        guard let sensor = claimedSensors[kind] else { return .empty }
        if kind == .compass {
            sensor.claim(call.sender)
            return .empty
        }
        authorizeClaim(call) {
            sensor.claim(call.sender)
            call.reply([])
        }
        return .later
    }

    /// A reading to the claimers of `kind`; a sensor's coming or going to everyone.
    private func announce(_ kind: AuxiliaryKind, presence: Bool) {
        let (path, interface, names) = SensorProxyFacade.changedProperties(kind, presence: presence)
        if presence {
            tree.emitPropertiesChanged(path: path, interface: interface, names: names)
        } else if let sensor = claimedSensors[kind] {
            for claimer in sensor.claimers.sorted() {
                tree.emitPropertiesChanged(path: path, interface: interface, names: names, destination: claimer)
            }
        }
    }

    // MARK: Sending

    /// Sends what the core said, in its order, then re-arms the engine's deadline.
    private func send(_ emissions: [Emission]) {
        for emission in emissions {
            switch emission {
            case .managerWillChange(let from, let to):
                tree.emitSignal(path: OrientationAPI.managerPath, interface: OrientationAPI.managerInterface, name: "OrientationWillChange",
                                arguments: [.string(from.rawValue), .string(to.rawValue)])
            case .managerChanged(let names, _):
                tree.emitPropertiesChanged(path: OrientationAPI.managerPath, interface: OrientationAPI.managerInterface, names: names.map(\.rawValue))
            case .clientWillChange(let client, let from, let to, let rotation):
                tree.emitSignal(path: client.path, interface: OrientationAPI.clientInterface, name: "OrientationWillChange",
                                arguments: [.string(from.rawValue), .string(to.rawValue), .uint32(rotation)], destination: client.owner)
            case .clientChanged(let client, let names, _):
                tree.emitPropertiesChanged(path: client.path, interface: OrientationAPI.clientInterface, names: names.map(\.rawValue),
                                           destination: client.owner)
            case .compatChanged(let names, let destination):
                tree.emitPropertiesChanged(path: SensorProxyFacade.path, interface: SensorProxyFacade.interface,
                                           names: names.map(\.rawValue), destination: destination)
            case .warning(let text):
                logger.warning(text)
            }
        }
        armEngineDeadline()
    }
}
